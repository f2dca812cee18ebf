import { useState } from 'react'
import type { ParameterType } from '../../../src/strategies/strategies.schemas'
import { useDefinitions } from '../../api/reads'
import type { StrategyDefinition, StrategyParameter } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { Check, SelectField, TextArea, TextField } from '../../components/form'
import { QueryTable, RowButton } from '../../components/table'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { strategyLabel } from '../../lib/labels'
import { updateAt } from '../../lib/lists'
import { useSession } from '../../lib/session'
import { useSaveDefinition, useToggleDeprecated } from './api'

const PARAMETER_TYPES: Record<ParameterType, string> = {
  string: 'String',
  percentage: 'Percentage',
  list: 'List (comma-separated)',
  number: 'Number',
  boolean: 'Boolean',
}

const PARAMETER_TYPE_OPTIONS = Object.entries(PARAMETER_TYPES).map(([value, label]) => ({ value, label }))

/** The strategy definitions, built in and custom; an Editor may change custom ones and deprecate any. */
export function DefinitionList () {
  const definitions = useDefinitions()
  const session = useSession()
  const announce = useAnnounce()
  const [editing, setEditing] = useState<StrategyDefinition | null>(null)
  const deprecate = useToggleDeprecated({ onSuccess: (_r, d) => announce(`${d.name} ${d.deprecated ? 'reactivated' : 'deprecated'}`) })
  const canChange = session.can('change-flags')
  return (
    <>
      <ErrorAlert error={deprecate.error} />
      <QueryTable
        query={definitions} what='Loading strategies'
        rowKey={(d) => d.name}
        rowHeader={{ label: 'Strategy', cell: (d) => <>{strategyLabel(d.name, definitions.data)} <code>{d.name}</code></>, detail: (d) => d.description }}
        columns={[
          { label: 'Parameters', cell: (d) => (d.parameters.length === 0 ? 'None' : d.parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ')) },
          { label: 'State', cell: (d) => `${d.deprecated ? 'Deprecated' : 'Active'}${d.editable ? '' : ', built in'}` },
        ]}
        actions={canChange
          ? (d) => (
            <div className='row'>
              {d.editable && <RowButton onClick={() => setEditing(d)} what={d.name}>Edit</RowButton>}
              <RowButton onClick={() => deprecate.mutate(d)} what={d.name}>{d.deprecated ? 'Reactivate' : 'Deprecate'}</RowButton>
            </div>
            )
          : undefined}
      />
      {editing && <DefinitionDialog definition={editing} onClose={() => setEditing(null)} />}
    </>
  )
}

/** A new strategy definition (`definition` null), or changes to one. */
export function DefinitionDialog ({ definition, onClose }: { definition: StrategyDefinition | null; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const [name, setName] = useState(definition?.name ?? '')
  const [description, setDescription] = useState(definition?.description ?? '')
  const [parameters, setParameters] = useState<StrategyParameter[]>(definition?.parameters ?? [])
  const save = useSaveDefinition(definition, done(() => `Strategy ${name} saved`))
  const update = updateAt(parameters, setParameters)
  return (
    <FormDialog
      title={definition ? `Edit strategy ${definition.name}` : 'New strategy'}
      onClose={onClose}
      wide
      onSubmit={() => save.mutate({ name, description: description || null, parameters })}
      write={save}
      shownAt={['/name', '/description', ...parameters.map((_, i) => `/parameters/${i}/name`)]}
    >
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
              <SelectField label='Parameter type' value={p.type} onChange={(v) => update(i, { type: v as ParameterType })} options={PARAMETER_TYPE_OPTIONS} />
              <TextField label='Parameter description' value={p.description ?? ''} onChange={(v) => update(i, { description: v })} />
            </div>
            <div className='row'>
              <Check label='Required' checked={p.required} onChange={(required) => update(i, { required })} />
              <button type='button' className='secondary outline small' onClick={() => setParameters(parameters.filter((_, j) => j !== i))}>Remove parameter {i + 1}</button>
            </div>
          </fieldset>
        ))}
        <button type='button' className='secondary' onClick={() => setParameters([...parameters, { name: '', type: 'string', description: '', required: false }])}>Add parameter</button>
      </fieldset>
    </FormDialog>
  )
}
