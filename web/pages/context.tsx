import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post, put, seg } from '../api'
import { useAnnounce } from '../announce'
import { Check, Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, RowButton, RowHeader, submitting, TextArea, TextField, useConfirmedRemoval, useTitle } from '../components/ui'
import { useSession } from '../session'
import type { ContextField } from '../types'

type Listed = ContextField & { usedInFeatures?: number; usedInProjects?: number }

const KEY = ['context']

export function ContextFields () {
  useTitle('Context fields')
  const fields = useQuery({ queryKey: ['context', 'list'], queryFn: () => get<Listed[]>('/api/admin/context') })
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [editing, setEditing] = useState<Listed | 'new' | null>(null)
  const removal = useConfirmedRemoval(
    (f: Listed) => del(`/api/admin/context/${seg(f.name)}`),
    async (f: Listed) => {
      await client.invalidateQueries({ queryKey: KEY })
      announce(`Context field ${f.name} deleted`)
    }
  )
  const canChange = session.can('change-flags')
  return (
    <>
      <PageHeading actions={canChange && <button type='button' onClick={() => setEditing('new')}>New context field</button>}>Context fields</PageHeading>
      <p className='muted'>What constraints can ask about a user or a request. SDKs fill in userId, sessionId, remoteAddress, appName, environment and currentTime; your application sends the others.</p>
      <QueryStatus query={fields} what='Loading context fields' />
      {fields.data && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Name</th><th scope='col'>Legal values</th><th scope='col'>Stickiness</th><th scope='col'>Used by</th>{canChange && <th scope='col'><span className='visually-hidden'>Actions</span></th>}</tr></thead>
            <tbody>
              {fields.data.map((f) => (
                <tr key={f.name}>
                  <RowHeader detail={f.description}>{f.name}</RowHeader>
                  <td>{f.legalValues?.length ? f.legalValues.map((v) => v.value).join(', ') : 'Any value'}</td>
                  <td>{f.stickiness ? 'Yes' : 'No'}</td>
                  <td>{f.usedInFeatures === undefined ? '' : `${f.usedInFeatures} flags`}</td>
                  {canChange && (
                    <td>
                      <div className='row'>
                        <RowButton onClick={() => setEditing(f)} what={f.name}>Edit</RowButton>
                        <RowButton onClick={() => removal.ask(f)} what={f.name}>Delete</RowButton>
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <ContextDialog field={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      <Confirm
        title={`Delete context field ${removal.item?.name ?? ''}?`}
        confirmLabel='Delete'
        {...removal.confirm}
      >
        <p>Constraints that read it keep working; they just can no longer be offered its legal values.</p>
      </Confirm>
    </>
  )
}

function ContextDialog ({ field, onClose }: { field: Listed | null; onClose: () => void }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const [name, setName] = useState(field?.name ?? '')
  const [description, setDescription] = useState(field?.description ?? '')
  const [stickiness, setStickiness] = useState(field?.stickiness ?? false)
  const [values, setValues] = useState((field?.legalValues ?? []).map((v) => v.value).join('\n'))
  const save = useMutation({
    mutationFn: () => {
      const legalValues = values.split('\n').map((v) => v.trim()).filter(Boolean).map((value) => ({ value }))
      const body = { name, description: description || null, stickiness, legalValues }
      return field ? put(`/api/admin/context/${seg(field.name)}`, body) : post('/api/admin/context', body)
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce(`Context field ${name} saved`)
      onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  return (
    <Dialog title={field ? `Edit context field ${field.name}` : 'New context field'} open onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label='Name' value={name} onChange={setName} required disabled={field !== null} errors={errorsAt(save.error, '/name')} />
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
        <TextArea label='Legal values' value={values} onChange={setValues} rows={4} hint='One value per line; empty: any value' errors={errorsAt(save.error, '/legalValues')} />
        <Check label='Can be used for stickiness' checked={stickiness} onChange={setStickiness} />
        <ErrorAlert error={save.error} shownAt={['/name', '/description', '/legalValues']} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}
