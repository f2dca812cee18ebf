import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post, put } from '../api'
import { useAnnounce } from '../announce'
import { type ConstraintDraft, ConstraintsEditor, describeConstraint, fromDraft, toDraft } from '../components/constraints'
import { Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, Loading, PageHeading, QueryStatus, RowButton, RowHeader, SelectField, submitting, TextArea, TextField, useConfirmedRemoval, useTitle } from '../components/ui'
import { keys, useProjects, useSegments } from '../queries'
import { useSession } from '../session'
import type { Segment } from '../types'

export function Segments () {
  useTitle('Segments')
  const segments = useSegments()
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [editing, setEditing] = useState<Segment | 'new' | null>(null)
  const removal = useConfirmedRemoval(
    (s: Segment) => del(`/api/admin/segments/${s.id}`),
    async (s: Segment) => {
      await client.invalidateQueries({ queryKey: keys.segments })
      announce(`Segment ${s.name} deleted`)
    }
  )
  const canChange = session.can('change-flags')
  return (
    <>
      <PageHeading actions={canChange && <button type='button' onClick={() => setEditing('new')}>New segment</button>}>Segments</PageHeading>
      <p className='muted'>A segment is a named set of constraints that strategies of many flags can share: change it once, every strategy using it follows.</p>
      <QueryStatus query={segments} what='Loading segments' />
      {segments.data?.length === 0 && <p>No segments yet.</p>}
      {segments.data && segments.data.length > 0 && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Name</th><th scope='col'>Constraints</th><th scope='col'>Project</th>{canChange && <th scope='col'><span className='visually-hidden'>Actions</span></th>}</tr></thead>
            <tbody>
              {segments.data.map((s) => (
                <tr key={s.id}>
                  <RowHeader detail={s.description}>{s.name}</RowHeader>
                  <td><ul className='facts-list'>{s.constraints.map((c, i) => <li key={i}>{describeConstraint(c)}</li>)}</ul></td>
                  <td>{s.project ?? 'All projects'}</td>
                  {canChange && (
                    <td>
                      <div className='row'>
                        <RowButton onClick={() => setEditing(s)} what={s.name}>Edit</RowButton>
                        <RowButton onClick={() => removal.ask(s)} what={s.name}>Delete</RowButton>
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <SegmentDialog segment={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      <Confirm
        title={`Delete segment ${removal.item?.name ?? ''}?`}
        confirmLabel='Delete'
        {...removal.confirm}
      >
        {removal.item && <SegmentUsage segment={removal.item} />}
      </Confirm>
    </>
  )
}

function SegmentUsage ({ segment }: { segment: Segment }) {
  const usage = useQuery({
    queryKey: ['segment-usage', segment.id],
    queryFn: () => get<{ strategies: { id: string; featureName: string; projectId: string; environment: string }[] }>(`/api/admin/segments/${segment.id}/strategies`),
  })
  if (usage.isPending) return <Loading what='Checking where it is used' />
  if (usage.isError) return <ErrorAlert error={usage.error} />
  const used = usage.data.strategies
  if (used.length === 0) return <p>No strategy uses it.</p>
  return (
    <>
      <p>It is used by {used.length} {used.length === 1 ? 'strategy' : 'strategies'}; remove it from them first:</p>
      <ul>{used.slice(0, 20).map((s) => <li key={s.id}>{s.featureName} in {s.environment}</li>)}</ul>
    </>
  )
}

function SegmentDialog ({ segment, onClose }: { segment: Segment | null; onClose: () => void }) {
  const projects = useProjects()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [name, setName] = useState(segment?.name ?? '')
  const [description, setDescription] = useState(segment?.description ?? '')
  const [project, setProject] = useState(segment?.project ?? '')
  const [constraints, setConstraints] = useState<ConstraintDraft[]>((segment?.constraints ?? []).map(toDraft))
  const save = useMutation({
    mutationFn: () => {
      const body = { name, description: description || null, project: project || null, constraints: constraints.map(fromDraft) }
      return segment ? put(`/api/admin/segments/${segment.id}`, body) : post('/api/admin/segments', body)
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.segments })
      announce(`Segment ${name} saved`)
      onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  const nested = constraints.map((_, i) => `/constraints/${i}`)
  return (
    <Dialog title={segment ? `Edit segment ${segment.name}` : 'New segment'} open onClose={onClose} wide>
      <form onSubmit={submit}>
        <TextField label='Name' value={name} onChange={setName} required errors={errorsAt(save.error, '/name')} />
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
        <SelectField
          label='Project'
          value={project}
          onChange={setProject}
          options={[{ value: '', label: 'All projects' }, ...(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))]}
          hint='A segment of one project can only be used by that project’s flags'
          errors={errorsAt(save.error, '/project')}
        />
        <ConstraintsEditor drafts={constraints} onChange={setConstraints} error={save.error} />
        <ErrorAlert error={save.error} shownAt={['/name', '/description', '/project', ...nested]} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}
