import { useState } from 'react'
import { ApiProblem } from '../../api/client'
import { useDefinitions, useSegments, useStickinessOptions } from '../../api/reads'
import type { FeatureDetails, Strategy } from '../../api/types'
import { ConstraintsEditor } from '../../components/constraints-editor'
import { FormDialog } from '../../components/dialog'
import { errorsAt } from '../../components/feedback'
import { Check, Checks, Field, GroupErrors, SelectField, TextField } from '../../components/form'
import { StickinessField, VariantsEditor } from '../../components/variants-editor'
import { useSayAndClose } from '../../lib/announce'
import { type ConstraintDraft, fromDraft, toDraft } from '../../lib/constraints'
import { strategyLabel } from '../../lib/labels'
import { draftToVariant, type VariantDraft, variantToDraft } from '../../lib/variants'
import { useSaveStrategy } from './api'

const rolloutDefaults = (feature: FeatureDetails) => ({ rollout: '100', stickiness: 'default', groupId: feature.name })

/** Adds a strategy to a flag's environment, or changes `strategy`. */
export function StrategyDialog ({ feature, environment, strategy, guarded = false, onClose }: {
  feature: FeatureDetails
  environment: string
  strategy: Strategy | null
  /** The environment needs change requests: saving adds the change to the caller's request. */
  guarded?: boolean
  onClose: () => void
}) {
  const definitions = useDefinitions()
  const segments = useSegments()
  const stickinessOptions = useStickinessOptions()
  const done = useSayAndClose(onClose)
  const [name, setName] = useState(strategy?.name ?? 'flexibleRollout')
  const [title, setTitle] = useState(strategy?.title ?? '')
  const [disabled, setDisabled] = useState(strategy?.disabled ?? false)
  const [parameters, setParameters] = useState<Record<string, string>>(strategy?.parameters ?? rolloutDefaults(feature))
  const [constraints, setConstraints] = useState<ConstraintDraft[]>((strategy?.constraints ?? []).map(toDraft))
  const [segmentIds, setSegmentIds] = useState<number[]>(strategy?.segments ?? [])
  const [variants, setVariants] = useState<VariantDraft[]>((strategy?.variants ?? []).map(variantToDraft))
  const save = useSaveStrategy({ feature, environment, guarded }, strategy, done(() =>
    guarded ? `The ${strategy ? 'change' : 'new strategy'} is added to your change request in ${environment}` : strategy ? 'Strategy saved' : `Strategy added in ${environment}`))
  const available = (definitions.data ?? []).filter((d) => !d.deprecated || d.name === name)
  const definition = available.find((d) => d.name === name)
  const usable = (segments.data ?? []).filter((s) => s.project === null || s.project === feature.project)
  const setParameter = (key: string, value: string) => setParameters((p) => ({ ...p, [key]: value }))
  const changeType = (next: string) => {
    setName(next)
    setParameters(next === 'flexibleRollout' ? rolloutDefaults(feature) : {})
  }
  const paramErrors = (key: string) => errorsAt(save.error, `/parameters/${key}`).concat(errorsAt(save.error, '/parameters'))
  const shownAt = ['/name', '/title', ...Object.keys(parameters).map((k) => `/parameters/${k}`)]
  const nested = save.error instanceof ApiProblem
    ? save.error.details.filter((d) => /^\/body\/(constraints|variants)\/\d+/.test(d.path ?? '')).map((d) => d.path!.replace(/^\/body/, ''))
    : []
  const submit = () => save.mutate({
    name,
    title: title.trim() || null,
    disabled,
    parameters,
    constraints: constraints.map(fromDraft),
    segments: segmentIds,
    variants: variants.map(draftToVariant),
  })

  return (
    <FormDialog
      title={strategy ? `Edit strategy in ${environment}` : `Add strategy in ${environment}`}
      onClose={onClose}
      wide
      onSubmit={submit}
      submitLabel={guarded ? 'Request change' : 'Save'}
      write={save}
      shownAt={[...shownAt, ...nested]}
    >
      <SelectField
        label='Strategy type'
        value={name}
        onChange={changeType}
        options={available.map((d) => ({ value: d.name, label: strategyLabel(d.name, definitions.data) }))}
        hint={definition?.description ?? undefined}
        errors={errorsAt(save.error, '/name')}
      />
      <TextField label='Title (optional)' value={title} onChange={setTitle} hint='A name for this strategy, shown in the list' errors={errorsAt(save.error, '/title')} />
      {name === 'flexibleRollout' && (
        <fieldset>
          <legend>Gradual rollout</legend>
          <Field label='Rollout' hint='Percentage of users who get the flag (0 to 100)' errors={paramErrors('rollout')}>
            {(aria) => (
              <div className='range-row'>
                <input
                  {...aria}
                  type='range'
                  min={0}
                  max={100}
                  step={1}
                  value={Number(parameters.rollout ?? 100)}
                  onChange={(e) => setParameter('rollout', e.target.value)}
                />
                <output aria-hidden='true'>{parameters.rollout ?? '100'}%</output>
              </div>
            )}
          </Field>
          <div className='grid-2'>
            <StickinessField
              label='Stickiness'
              hint='Which context field decides who is in the percentage'
              errors={paramErrors('stickiness')}
              value={parameters.stickiness ?? 'default'}
              options={stickinessOptions}
              onChange={(v) => setParameter('stickiness', v)}
            />
            <TextField label='Group id' value={parameters.groupId ?? ''} onChange={(v) => setParameter('groupId', v)} hint='Flags with the same group id give the same users the same answer' errors={paramErrors('groupId')} />
          </div>
        </fieldset>
      )}
      {name === 'userWithId' && (
        <Field label='User IDs' hint='Separated by commas' errors={paramErrors('userIds')}>
          {(aria) => <textarea {...aria} rows={2} value={parameters.userIds ?? ''} onChange={(e) => setParameter('userIds', e.target.value)} />}
        </Field>
      )}
      {name !== 'flexibleRollout' && name !== 'userWithId' && definition && definition.parameters.length > 0 && (
        <fieldset>
          <legend>Parameters</legend>
          {definition.parameters.map((p) => (
            p.type === 'boolean'
              ? <Check key={p.name} label={p.name} hint={p.description} checked={parameters[p.name] === 'true'} onChange={(on) => setParameter(p.name, on ? 'true' : 'false')} />
              : (
                <TextField
                  key={p.name}
                  label={`${p.name}${p.required ? '' : ' (optional)'}`}
                  value={parameters[p.name] ?? ''}
                  onChange={(v) => setParameter(p.name, v)}
                  inputMode={p.type === 'number' || p.type === 'percentage' ? 'decimal' : undefined}
                  hint={[p.description, p.type === 'list' ? 'Separated by commas' : p.type === 'percentage' ? 'A whole number from 0 to 100' : ''].filter(Boolean).join('. ')}
                  errors={paramErrors(p.name)}
                />
                )
          ))}
        </fieldset>
      )}
      <ConstraintsEditor drafts={constraints} onChange={setConstraints} error={save.error} />
      <fieldset>
        <legend>Segments</legend>
        {usable.length === 0 && <p className='muted'>No segments yet.</p>}
        <Checks choices={usable.map((s) => ({ value: s.id, label: s.name, hint: s.description ?? undefined }))} chosen={segmentIds} onChange={setSegmentIds} />
        <GroupErrors errors={errorsAt(save.error, '/segments')} />
      </fieldset>
      <fieldset>
        <legend>Strategy variants</legend>
        <p className='muted'>Users this strategy reaches get one of these variants (instead of the environment's variants).</p>
        <VariantsEditor drafts={variants} onChange={setVariants} error={save.error} pathPrefix='/variants' stickinessOptions={stickinessOptions} />
      </fieldset>
      <Check label='Paused (kept, but not served to SDKs)' checked={disabled} onChange={setDisabled} />
    </FormDialog>
  )
}
