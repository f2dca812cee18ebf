import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { ApiProblem, post, put, seg } from '../api'
import { useAnnounce } from '../announce'
import { type ConstraintDraft, ConstraintsEditor, fromDraft, toDraft, useContextFields } from '../components/constraints'
import { Check, Dialog, ErrorAlert, errorsAt, Field, FormButtons, SelectField, submitting, TextField } from '../components/ui'
import { draftToVariant, type VariantDraft, VariantsEditor, variantToDraft } from '../components/variants'
import { keys, useDefinitions, useSegments } from '../queries'
import type { FeatureDetails, Strategy, StrategyDefinition } from '../types'

/** The names people know the built-in strategies by. */
const BUILT_IN_LABELS: Record<string, string> = {
  flexibleRollout: 'Gradual rollout',
  default: 'Standard (on for everyone)',
  userWithId: 'User IDs',
}

export const strategyLabel = (name: string, definitions?: StrategyDefinition[]) =>
  BUILT_IN_LABELS[name] ?? definitions?.find((d) => d.name === name)?.displayName ?? definitions?.find((d) => d.name === name)?.title ?? name

const STICKINESS = ['default', 'userId', 'sessionId', 'random']

export function useStickinessOptions () {
  const context = useContextFields()
  return [...new Set([...STICKINESS, ...(context.data ?? []).filter((c) => c.stickiness).map((c) => c.name)])]
}

export function StrategyDialog ({ feature, environment, strategy, onClose }: {
  feature: FeatureDetails
  environment: string
  strategy: Strategy | null
  onClose: () => void
}) {
  const definitions = useDefinitions()
  const segments = useSegments()
  const stickinessOptions = useStickinessOptions()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [name, setName] = useState(strategy?.name ?? 'flexibleRollout')
  const [title, setTitle] = useState(strategy?.title ?? '')
  const [disabled, setDisabled] = useState(strategy?.disabled ?? false)
  const [parameters, setParameters] = useState<Record<string, string>>(
    strategy?.parameters ?? { rollout: '100', stickiness: 'default', groupId: feature.name }
  )
  const [constraints, setConstraints] = useState<ConstraintDraft[]>((strategy?.constraints ?? []).map(toDraft))
  const [segmentIds, setSegmentIds] = useState<number[]>(strategy?.segments ?? [])
  const [variants, setVariants] = useState<VariantDraft[]>((strategy?.variants ?? []).map(variantToDraft))
  const base = `/api/admin/projects/${seg(feature.project)}/features/${seg(feature.name)}/environments/${seg(environment)}/strategies`
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        title: title.trim() || null,
        disabled,
        parameters,
        constraints: constraints.map(fromDraft),
        segments: segmentIds,
        variants: variants.map(draftToVariant),
      }
      return strategy ? put(`${base}/${seg(strategy.id)}`, body) : post(base, body)
    },
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) }),
        client.invalidateQueries({ queryKey: keys.features(feature.project) }),
      ])
      announce(strategy ? 'Strategy saved' : `Strategy added in ${environment}`)
      onClose()
    },
  })
  const available = (definitions.data ?? []).filter((d) => !d.deprecated || d.name === name)
  const definition = available.find((d) => d.name === name)
  const setParameter = (key: string, value: string) => setParameters((p) => ({ ...p, [key]: value }))
  const changeType = (next: string) => {
    setName(next)
    setParameters(next === 'flexibleRollout' ? { rollout: '100', stickiness: 'default', groupId: feature.name } : {})
  }
  const submit = submitting(() => save.mutate())
  const paramErrors = (key: string) => errorsAt(save.error, `/parameters/${key}`).concat(errorsAt(save.error, '/parameters'))
  const shownAt = ['/name', '/title', ...Object.keys(parameters).map((k) => `/parameters/${k}`)]
  const nested = save.error instanceof ApiProblem
    ? save.error.details.filter((d) => /^\/body\/(constraints|variants)\/\d+/.test(d.path ?? '')).map((d) => d.path!.replace(/^\/body/, ''))
    : []

  return (
    <Dialog title={strategy ? `Edit strategy in ${environment}` : `Add strategy in ${environment}`} open onClose={onClose} wide>
      <form onSubmit={submit}>
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
              <Field label='Stickiness' hint='Which context field decides who is in the percentage' errors={paramErrors('stickiness')}>
                {(aria) => (
                  <select {...aria} value={parameters.stickiness ?? 'default'} onChange={(e) => setParameter('stickiness', e.target.value)}>
                    {[...new Set([...stickinessOptions, parameters.stickiness ?? 'default'])].map((s) => <option key={s} value={s}>{s}</option>)}
                  </select>
                )}
              </Field>
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
          {(segments.data ?? []).filter((s) => s.project === null || s.project === feature.project).length === 0 && <p className='muted'>No segments yet.</p>}
          {(segments.data ?? []).filter((s) => s.project === null || s.project === feature.project).map((s) => (
            <Check
              key={s.id}
              label={s.name}
              hint={s.description ?? undefined}
              checked={segmentIds.includes(s.id)}
              onChange={(on) => setSegmentIds((ids) => (on ? [...ids, s.id] : ids.filter((id) => id !== s.id)))}
            />
          ))}
          {errorsAt(save.error, '/segments').length > 0 && <p className='field-error'>{errorsAt(save.error, '/segments').join(' ')}</p>}
        </fieldset>
        <fieldset>
          <legend>Strategy variants</legend>
          <p className='muted'>Users this strategy reaches get one of these variants (instead of the environment's variants).</p>
          <VariantsEditor drafts={variants} onChange={setVariants} error={save.error} pathPrefix='/variants' stickinessOptions={stickinessOptions} />
        </fieldset>
        <Check label='Paused (kept, but not served to SDKs)' checked={disabled} onChange={setDisabled} />
        <ErrorAlert error={save.error} shownAt={[...shownAt, ...nested]} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}
