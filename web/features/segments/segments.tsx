import { useState } from 'react'
import { useProjects, useSegments } from '../../api/reads'
import type { Segment } from '../../api/types'
import { ConstraintsEditor } from '../../components/constraints-editor'
import { FormDialog } from '../../components/dialog'
import { EditableTable } from '../../components/editable-table'
import { ErrorAlert, errorsAt, Loading } from '../../components/feedback'
import { SelectField, TextArea, TextField } from '../../components/form'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { type ConstraintDraft, describeConstraint, fromDraft, toDraft } from '../../lib/constraints'
import { projectOptions } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useDeleteSegment, useSaveSegment, useSegmentUsage } from './api'

/** Every segment, each with its constraints; an Editor may change and delete them. */
export function SegmentList () {
  const session = useSession()
  const announce = useAnnounce()
  const segments = useSegments()
  const remove = useDeleteSegment({ onSuccess: (_d, s) => announce(`Segment ${s.name} deleted`) })
  return (
    <EditableTable
      query={segments} what='Loading segments' empty='No segments yet.'
      rowKey={(s) => s.id}
      rowHeader={{ label: 'Name', cell: (s) => s.name, detail: (s) => s.description }}
      columns={[
        { label: 'Constraints', cell: (s) => <ul className='facts-list'>{s.constraints.map((c, i) => <li key={i}>{describeConstraint(c)}</li>)}</ul> },
        { label: 'Project', cell: (s) => s.project ?? 'All projects' },
      ]}
      mayChange={session.can('change-flags')}
      name={(s) => s.name}
      edit={(s, close) => <SegmentDialog segment={s} onClose={close} />}
      remove={{
        write: remove,
        title: (s) => `Delete segment ${s.name}?`,
        body: (s) => <SegmentUsage segment={s} />,
      }}
    />
  )
}

function SegmentUsage ({ segment }: { segment: Segment }) {
  const usage = useSegmentUsage(segment)
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

/** A new segment (`segment` null), or changes to one. */
export function SegmentDialog ({ segment, onClose }: { segment: Segment | null; onClose: () => void }) {
  const projects = useProjects()
  const done = useSayAndClose(onClose)
  const [name, setName] = useState(segment?.name ?? '')
  const [description, setDescription] = useState(segment?.description ?? '')
  const [project, setProject] = useState(segment?.project ?? '')
  const [constraints, setConstraints] = useState<ConstraintDraft[]>((segment?.constraints ?? []).map(toDraft))
  const save = useSaveSegment(segment, done(() => `Segment ${name} saved`))
  return (
    <FormDialog
      title={segment ? `Edit segment ${segment.name}` : 'New segment'}
      onClose={onClose}
      wide
      onSubmit={() => save.mutate({ name, description: description || null, project: project || null, constraints: constraints.map(fromDraft) })}
      write={save}
      shownAt={['/name', '/description', '/project', ...constraints.map((_, i) => `/constraints/${i}`)]}
    >
      <TextField label='Name' value={name} onChange={setName} required errors={errorsAt(save.error, '/name')} />
      <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
      <SelectField
        label='Project'
        value={project}
        onChange={setProject}
        options={[{ value: '', label: 'All projects' }, ...projectOptions(projects.data)]}
        hint='A segment of one project can only be used by that project’s flags'
        errors={errorsAt(save.error, '/project')}
      />
      <ConstraintsEditor drafts={constraints} onChange={setConstraints} error={save.error} />
    </FormDialog>
  )
}
