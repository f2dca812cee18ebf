import { useState } from 'react'
import { Link } from 'wouter'
import { changeCount, openRequestIn, useGuarded, useMyChangeRequests } from '../../api/change-requests'
import { seg } from '../../api/client'
import { useDefinitions, useSegments } from '../../api/reads'
import type { FeatureDetails, FeatureEnvironment, Strategy } from '../../api/types'
import { Confirm, useConfirmedRemoval } from '../../components/dialog'
import { ErrorAlert } from '../../components/feedback'
import { Check } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { describeConstraint } from '../../lib/constraints'
import { percent, strategyLabel } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useRemoveStrategy, useReorderStrategies, useSwitch } from './api'
import { StrategyDialog } from './strategy-dialog'

/** A flag in one environment: its switch, and its strategies in the order SDKs evaluate them. */
export function EnvironmentPanel ({ feature, env }: { feature: FeatureDetails; env: FeatureEnvironment }) {
  const session = useSession()
  const announce = useAnnounce()
  const definitions = useDefinitions()
  const segments = useSegments()
  const [editing, setEditing] = useState<Strategy | 'new' | null>(null)
  const canChange = session.can('change-flags', feature.project) && feature.lifecycle.stage !== 'archived'
  const guarded = useGuarded(feature.project)(env.name)
  const place = { feature, environment: env.name, guarded }
  const proposed = `added to your change request in ${env.name}`
  const toggle = useSwitch(place, { onSuccess: (_data, on) => announce(guarded ? `Switching ${on ? 'on' : 'off'} ${proposed}` : `${feature.name} is ${on ? 'on' : 'off'} in ${env.name}`) })
  const removal = useConfirmedRemoval(useRemoveStrategy(place, { onSuccess: () => announce(guarded ? `Removing the strategy ${proposed}` : 'Strategy removed') }))
  const reorder = useReorderStrategies(place, { onSuccess: () => announce(guarded ? `The new order ${proposed}` : 'Strategy order saved') })
  const strategies = [...env.strategies].sort((a, b) => a.sortOrder - b.sortOrder)
  const move = (i: number, by: number) => {
    const next = [...strategies]
    const [item] = next.splice(i, 1)
    next.splice(i + by, 0, item!)
    reorder.mutate(next)
  }
  const label = (s: Strategy) => s.title || strategyLabel(s.name, definitions.data)
  const headingId = `env-${env.name}`
  return (
    <section className='environment card' aria-labelledby={headingId}>
      <div className='environment-head'>
        <h3 id={headingId}>{env.name}</h3>
        <Check
          isSwitch
          label={`Enabled in ${env.name}`}
          checked={toggle.isPending && !guarded ? toggle.variables : env.enabled}
          disabled={!canChange || toggle.isPending}
          onChange={(on) => toggle.mutate(on)}
          hint={guarded && canChange ? 'Switching adds the change to your change request' : undefined}
        />
      </div>
      {guarded && <ChangeRequestNote project={feature.project} environment={env.name} />}
      <ErrorAlert error={toggle.error} />
      {strategies.length === 0 && <p className='muted'>No strategies: when on, everyone in {env.name} gets the flag.</p>}
      <ol className='strategies'>
        {strategies.map((s, i) => (
          <li key={s.id} className='strategy'>
            <div>
              <strong>{label(s)}</strong>
              {s.title && <span className='muted'> ({strategyLabel(s.name, definitions.data)})</span>}
              {s.disabled && <span className='badge'>Paused</span>}
              <StrategySummary strategy={s} segmentNames={(segments.data ?? []).filter((x) => s.segments.includes(x.id)).map((x) => x.name)} />
            </div>
            {canChange && (
              <div className='row'>
                <button type='button' className='secondary outline small' onClick={() => setEditing(s)}>{guarded ? 'Request change' : 'Edit'}<span className='visually-hidden'>: {label(s)}</span></button>
                {i > 0 && <button type='button' className='secondary outline small' onClick={() => move(i, -1)}>Move up<span className='visually-hidden'>: {label(s)}</span></button>}
                {i < strategies.length - 1 && <button type='button' className='secondary outline small' onClick={() => move(i, 1)}>Move down<span className='visually-hidden'>: {label(s)}</span></button>}
                <button type='button' className='secondary outline small' onClick={() => removal.ask(s)}>{guarded ? 'Request removal' : 'Remove'}<span className='visually-hidden'>: {label(s)}</span></button>
              </div>
            )}
          </li>
        ))}
      </ol>
      <ErrorAlert error={reorder.error} />
      {canChange && <button type='button' className='secondary' onClick={() => setEditing('new')}>{guarded ? 'Request a new strategy' : 'Add strategy'}<span className='visually-hidden'> in {env.name}</span></button>}
      {editing && (
        <StrategyDialog
          feature={feature}
          environment={env.name}
          strategy={editing === 'new' ? null : editing}
          guarded={guarded}
          onClose={() => setEditing(null)}
        />
      )}
      <Confirm
        title={guarded ? 'Request the removal of this strategy?' : 'Remove this strategy?'}
        confirmLabel={guarded ? 'Request removal' : 'Remove'}
        {...removal.confirm}
      >
        <p>{guarded ? `Once the change request is approved and applied, users it reached no longer get the flag through it in ${env.name}.` : `Users it reached no longer get the flag through it in ${env.name}.`}</p>
      </Confirm>
    </section>
  )
}

/** In a guarded environment: that changes go through a change request, and the caller's request there, with its count. */
function ChangeRequestNote ({ project, environment }: { project: string; environment: string }) {
  const mine = useMyChangeRequests(project)
  const open = openRequestIn(mine.data, environment)
  return (
    <p className='alert info'>
      Changes in {environment} need a change request, approved by someone else before they apply.{' '}
      {open
        ? <Link href={`/projects/${seg(project)}/change-requests/${open.id}`}>Your change request #{open.id} ({open.state}): {changeCount(open)} {changeCount(open) === 1 ? 'change' : 'changes'}</Link>
        : 'Your changes here start one.'}
    </p>
  )
}

/** What a strategy does, a fact per line. */
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
      {strategy.variants.length > 0 && <li>Variants: {strategy.variants.map((v) => `${v.name} ${percent(v.weight)}`).join(', ')}</li>}
    </ul>
  )
}
