import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'wouter'
import { del, flagPath, post, put, seg } from '../api'
import { useAnnounce } from '../announce'
import { describeConstraint } from '../components/constraints'
import { Check, Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, Loading, PageHeading, SelectField, submitting, TextArea, useConfirmedRemoval, useTitle } from '../components/ui'
import { keys, useDefinitions, useFeature, useSegments } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails, FeatureEnvironment, Strategy } from '../types'
import { Dependencies } from './dependencies'
import { FlagHistory } from './flag-history'
import { FlagVariants } from './flag-variants'
import { FLAG_TYPES, STAGE_LABELS } from './flags'
import { Lifecycle } from './lifecycle'
import { StrategyDialog, strategyLabel } from './strategy'
import { Tags } from './tags'

const TABS = [
  { id: 'overview', label: 'Overview', path: '' },
  { id: 'variants', label: 'Variants', path: '/variants' },
  { id: 'history', label: 'History', path: '/history' },
]

export function FlagPage ({ project, name, tab }: { project: string; name: string; tab: string }) {
  const feature = useFeature(project, name)
  const current = TABS.find((t) => t.id === tab)
  useTitle(`${name}${current && current.id !== 'overview' ? ` · ${current.label}` : ''}`)
  const base = `/projects/${seg(project)}/features/${seg(name)}`
  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{project}</Link> / {name}</p>
      {feature.isPending && <><PageHeading>{name}</PageHeading><Loading what='Loading the flag' /></>}
      {feature.isError && <><PageHeading>{name}</PageHeading><ErrorAlert error={feature.error} /></>}
      {feature.data && (
        <>
          <FlagHeader feature={feature.data} />
          <nav aria-label='Flag sections' className='tabs'>
            <ul>
              {TABS.map((t) => (
                <li key={t.id}><Link href={`${base}${t.path}`} aria-current={t.id === tab ? 'page' : undefined}>{t.label}</Link></li>
              ))}
            </ul>
          </nav>
          {tab === 'overview' && <Overview feature={feature.data} />}
          {tab === 'variants' && <FlagVariants feature={feature.data} />}
          {tab === 'history' && <FlagHistory feature={feature.data} />}
          {!current && <p>No such section. <Link href={base}>Back to the flag</Link>.</p>}
        </>
      )}
    </>
  )
}

function FlagHeader ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [confirming, setConfirming] = useState(false)
  const archived = feature.lifecycle.stage === 'archived'
  const refresh = () => Promise.all([
    client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) }),
    client.invalidateQueries({ queryKey: keys.features(feature.project) }),
    client.invalidateQueries({ queryKey: keys.lifecycle(feature.project, feature.name) }),
  ])
  const archive = useMutation({
    mutationFn: () => del(flagPath(feature.project, feature.name)),
    onSuccess: async () => {
      await refresh()
      setConfirming(false)
      announce(`${feature.name} archived`)
    },
  })
  const revive = useMutation({
    mutationFn: () => post(`/api/admin/projects/${seg(feature.project)}/revive`, { features: [feature.name] }),
    onSuccess: async () => {
      await refresh()
      announce(`${feature.name} revived`)
    },
  })
  const [editing, setEditing] = useState(false)
  const actions = session.can('change-flags') && (
    archived
      ? <button type='button' onClick={() => revive.mutate()} aria-busy={revive.isPending || undefined}>Revive</button>
      : (
        <>
          <button type='button' className='secondary outline' onClick={() => setEditing(true)}>Edit settings</button>
          <button type='button' className='secondary outline' onClick={() => setConfirming(true)}>Archive</button>
        </>
        )
  )
  return (
    <header className='flag-header'>
      <PageHeading actions={actions}>{feature.name}</PageHeading>
      <p className='facts'>
        <span className='badge'>{FLAG_TYPES.find((t) => t.value === feature.type)?.label ?? feature.type}</span>
        <span className={`badge stage-${feature.lifecycle.stage}`}>Stage: {STAGE_LABELS[feature.lifecycle.stage]}</span>
        {feature.description && <span>{feature.description}</span>}
      </p>
      {archived && <p className='alert warning'>This flag is archived: SDKs no longer receive it. Revive it to use it again.</p>}
      <ErrorAlert error={revive.error} />
      {editing && <SettingsDialog feature={feature} onClose={() => setEditing(false)} onSaved={refresh} />}
      <Confirm
        title={`Archive ${feature.name}?`}
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={() => archive.mutate()}
        confirmLabel='Archive'
        busy={archive.isPending}
        error={archive.error}
      >
        <p>SDKs stop receiving the flag, so code that still asks for it gets its default. You can revive it later.</p>
      </Confirm>
    </header>
  )
}

function SettingsDialog ({ feature, onClose, onSaved }: { feature: FeatureDetails; onClose: () => void; onSaved: () => Promise<unknown> }) {
  const announce = useAnnounce()
  const [description, setDescription] = useState(feature.description ?? '')
  const [type, setType] = useState(feature.type)
  const [impressionData, setImpressionData] = useState(feature.impressionData)
  const save = useMutation({
    mutationFn: () => put(flagPath(feature.project, feature.name), { description: description || null, type, impressionData }),
    onSuccess: async () => {
      await onSaved()
      announce('Settings saved')
      onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  return (
    <Dialog title={`Settings of ${feature.name}`} open onClose={onClose}>
      <form onSubmit={submit}>
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
        <SelectField label='Type' value={type} onChange={setType} options={FLAG_TYPES.some((t) => t.value === type) ? FLAG_TYPES : [...FLAG_TYPES, { value: type, label: type }]} errors={errorsAt(save.error, '/type')} />
        <Check label='Impression data' hint='SDKs emit an impression event each time they evaluate the flag' checked={impressionData} onChange={setImpressionData} />
        <ErrorAlert error={save.error} shownAt={['/description', '/type']} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}

function Overview ({ feature }: { feature: FeatureDetails }) {
  return (
    <>
      <Lifecycle feature={feature} />
      <section aria-labelledby='environments-heading'>
        <h2 id='environments-heading'>Environments</h2>
        {feature.environments.length === 0 && <p>This flag has no environment you may see.</p>}
        <div className='environments'>
          {feature.environments.map((env) => <EnvironmentPanel key={env.name} feature={feature} env={env} />)}
        </div>
      </section>
      <Dependencies feature={feature} />
      <Tags feature={feature} />
    </>
  )
}

function EnvironmentPanel ({ feature, env }: { feature: FeatureDetails; env: FeatureEnvironment }) {
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const definitions = useDefinitions()
  const segments = useSegments()
  const [editing, setEditing] = useState<Strategy | 'new' | null>(null)
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const envPath = `${flagPath(feature.project, feature.name)}/environments/${seg(env.name)}`
  const refresh = () => Promise.all([
    client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) }),
    client.invalidateQueries({ queryKey: keys.features(feature.project) }),
  ])
  const toggle = useMutation({
    mutationFn: (on: boolean) => post(`${envPath}/${on ? 'on' : 'off'}`),
    onSuccess: async (_data, on) => {
      await refresh()
      announce(`${feature.name} is ${on ? 'on' : 'off'} in ${env.name}`)
    },
  })
  const removal = useConfirmedRemoval(
    (s: Strategy) => del(`${envPath}/strategies/${seg(s.id)}`),
    async () => {
      await refresh()
      announce('Strategy removed')
    }
  )
  const reorder = useMutation({
    mutationFn: (order: Strategy[]) => post(`${envPath}/strategies/set-sort-order`, order.map((s, i) => ({ id: s.id, sortOrder: i }))),
    onSuccess: async () => {
      await refresh()
      announce('Strategy order saved')
    },
  })
  const strategies = [...env.strategies].sort((a, b) => a.sortOrder - b.sortOrder)
  const move = (i: number, by: number) => {
    const next = [...strategies]
    const [item] = next.splice(i, 1)
    next.splice(i + by, 0, item!)
    reorder.mutate(next)
  }
  const headingId = `env-${env.name}`
  return (
    <section className='environment card' aria-labelledby={headingId}>
      <div className='environment-head'>
        <h3 id={headingId}>{env.name}</h3>
        <Check
          isSwitch
          label={`Enabled in ${env.name}`}
          checked={toggle.isPending ? toggle.variables : env.enabled}
          disabled={!canChange || toggle.isPending}
          onChange={(on) => toggle.mutate(on)}
        />
      </div>
      <ErrorAlert error={toggle.error} />
      {strategies.length === 0 && <p className='muted'>No strategies: when on, everyone in {env.name} gets the flag.</p>}
      <ol className='strategies'>
        {strategies.map((s, i) => (
          <li key={s.id} className='strategy'>
            <div>
              <strong>{s.title || strategyLabel(s.name, definitions.data)}</strong>
              {s.title && <span className='muted'> ({strategyLabel(s.name, definitions.data)})</span>}
              {s.disabled && <span className='badge'>Paused</span>}
              <StrategySummary strategy={s} segmentNames={(segments.data ?? []).filter((x) => s.segments.includes(x.id)).map((x) => x.name)} />
            </div>
            {canChange && (
              <div className='row'>
                <button type='button' className='secondary outline small' onClick={() => setEditing(s)}>Edit</button>
                {i > 0 && <button type='button' className='secondary outline small' onClick={() => move(i, -1)}>Move up<span className='visually-hidden'>: {s.title || strategyLabel(s.name, definitions.data)}</span></button>}
                {i < strategies.length - 1 && <button type='button' className='secondary outline small' onClick={() => move(i, 1)}>Move down<span className='visually-hidden'>: {s.title || strategyLabel(s.name, definitions.data)}</span></button>}
                <button type='button' className='secondary outline small' onClick={() => removal.ask(s)}>Remove</button>
              </div>
            )}
          </li>
        ))}
      </ol>
      <ErrorAlert error={reorder.error} />
      {canChange && <button type='button' className='secondary' onClick={() => setEditing('new')}>Add strategy<span className='visually-hidden'> in {env.name}</span></button>}
      {editing && (
        <StrategyDialog
          feature={feature}
          environment={env.name}
          strategy={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
      <Confirm
        title='Remove this strategy?'
        confirmLabel='Remove'
        {...removal.confirm}
      >
        <p>Users it reached no longer get the flag through it in {env.name}.</p>
      </Confirm>
    </section>
  )
}

function StrategySummary ({ strategy, segmentNames }: { strategy: Strategy; segmentNames: string[] }) {
  const p = strategy.parameters
  const facts: string[] = []
  if (strategy.name === 'flexibleRollout') {
    facts.push(`Rollout ${p.rollout ?? '100'}% by ${p.stickiness ?? 'default'}${p.groupId ? `, group ${p.groupId}` : ''}`)
  } else if (strategy.name === 'userWithId') {
    facts.push(`Users: ${p.userIds ?? ''}`)
  } else {
    for (const [k, v] of Object.entries(p)) facts.push(`${k}: ${v}`)
  }
  return (
    <ul className='facts-list'>
      {facts.map((f) => <li key={f}>{f}</li>)}
      {strategy.constraints.map((c, i) => <li key={`c${i}`}>Only when {describeConstraint(c)}</li>)}
      {segmentNames.map((s) => <li key={`s${s}`}>Segment: {s}</li>)}
      {strategy.variants.length > 0 && <li>Variants: {strategy.variants.map((v) => `${v.name} ${(v.weight / 10).toFixed(1)}%`).join(', ')}</li>}
    </ul>
  )
}
