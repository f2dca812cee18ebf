import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { post, put, seg } from '../api'
import { useAnnounce } from '../announce'
import { Check, Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, RowButton, RowHeader, SelectField, submitting, TextArea, TextField, useTitle } from '../components/ui'
import { keys, useDefinitions } from '../queries'
import { useSession } from '../session'
import type { StrategyDefinition, StrategyParameter } from '../types'
import { strategyLabel } from './strategy'

const PARAMETER_TYPES = [
  { value: 'string', label: 'String' },
  { value: 'percentage', label: 'Percentage' },
  { value: 'list', label: 'List (comma-separated)' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Boolean' },
]

export function Definitions () {
  useTitle('Strategies')
  const definitions = useDefinitions()
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [editing, setEditing] = useState<StrategyDefinition | 'new' | null>(null)
  const deprecate = useMutation({
    mutationFn: (d: StrategyDefinition) => post(`/api/admin/strategies/${seg(d.name)}/${d.deprecated ? 'reactivate' : 'deprecate'}`),
    onSuccess: async (_r, d) => {
      await client.invalidateQueries({ queryKey: keys.definitions })
      announce(`${d.name} ${d.deprecated ? 'reactivated' : 'deprecated'}`)
    },
  })
  const canChange = session.can('change-flags')
  return (
    <>
      <PageHeading actions={canChange && <button type='button' onClick={() => setEditing('new')}>New strategy</button>}>Strategies</PageHeading>
      <p className='muted'>The kinds of strategy a flag can use. Custom ones declare parameters that SDKs with a matching implementation read.</p>
      <QueryStatus query={definitions} what='Loading strategies' />
      <ErrorAlert error={deprecate.error} />
      {definitions.data && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Strategy</th><th scope='col'>Parameters</th><th scope='col'>State</th>{canChange && <th scope='col'><span className='visually-hidden'>Actions</span></th>}</tr></thead>
            <tbody>
              {definitions.data.map((d) => (
                <tr key={d.name}>
                  <RowHeader detail={d.description}>{strategyLabel(d.name, definitions.data)} <code>{d.name}</code></RowHeader>
                  <td>{d.parameters.length === 0 ? 'None' : d.parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ')}</td>
                  <td>{d.deprecated ? 'Deprecated' : 'Active'}{d.editable ? '' : ', built in'}</td>
                  {canChange && (
                    <td>
                      <div className='row'>
                        {d.editable && <RowButton onClick={() => setEditing(d)} what={d.name}>Edit</RowButton>}
                        <button type='button' className='secondary outline small' onClick={() => deprecate.mutate(d)}>
                          {d.deprecated ? 'Reactivate' : 'Deprecate'}<span className='visually-hidden'> {d.name}</span>
                        </button>
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <DefinitionDialog definition={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </>
  )
}

function DefinitionDialog ({ definition, onClose }: { definition: StrategyDefinition | null; onClose: () => void }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const [name, setName] = useState(definition?.name ?? '')
  const [description, setDescription] = useState(definition?.description ?? '')
  const [parameters, setParameters] = useState<StrategyParameter[]>(definition?.parameters ?? [])
  const save = useMutation({
    mutationFn: () => {
      const body = { name, description: description || null, parameters }
      return definition ? put(`/api/admin/strategies/${seg(definition.name)}`, body) : post('/api/admin/strategies', body)
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.definitions })
      announce(`Strategy ${name} saved`)
      onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  const update = (i: number, patch: Partial<StrategyParameter>) => setParameters((ps) => ps.map((p, j) => (j === i ? { ...p, ...patch } : p)))
  return (
    <Dialog title={definition ? `Edit strategy ${definition.name}` : 'New strategy'} open onClose={onClose} wide>
      <form onSubmit={submit}>
        <TextField label='Name' value={name} onChange={setName} required disabled={definition !== null} hint='SDKs look the strategy up by this name' errors={errorsAt(save.error, '/name')} />
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
        <fieldset>
          <legend>Parameters</legend>
          {parameters.length === 0 && <p className='muted'>No parameters.</p>}
          {parameters.map((p, i) => (
            <fieldset key={i} className='card'>
              <legend>Parameter {i + 1}</legend>
              <div className='grid-3'>
                <TextField label='Parameter name' value={p.name} onChange={(v) => update(i, { name: v })} required errors={errorsAt(save.error, `/parameters/${i}/name`)} />
                <SelectField label='Parameter type' value={p.type} onChange={(v) => update(i, { type: v as StrategyParameter['type'] })} options={PARAMETER_TYPES} />
                <TextField label='Parameter description' value={p.description ?? ''} onChange={(v) => update(i, { description: v })} />
              </div>
              <div className='row'>
                <Check label='Required' checked={p.required} onChange={(required) => update(i, { required })} />
                <button type='button' className='secondary outline small' onClick={() => setParameters((ps) => ps.filter((_, j) => j !== i))}>Remove parameter {i + 1}</button>
              </div>
            </fieldset>
          ))}
          <button type='button' className='secondary' onClick={() => setParameters((ps) => [...ps, { name: '', type: 'string', description: '', required: false }])}>Add parameter</button>
        </fieldset>
        <ErrorAlert error={save.error} shownAt={['/name', '/description', ...parameters.map((_, i) => `/parameters/${i}/name`)]} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}
