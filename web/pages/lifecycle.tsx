import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { flagPath, post } from '../api'
import { useAnnounce } from '../announce'
import { Dialog, ErrorAlert, errorsAt, FormButtons, submitting, TextField, Time } from '../components/ui'
import { keys, useLifecycle } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails, Stage } from '../types'
import { STAGE_LABELS } from './flags'

const ORDER: Stage[] = ['initial', 'pre-live', 'live', 'completed', 'archived']

const MEANING: Record<Stage, string> = {
  initial: 'created, no SDK has asked for it yet',
  'pre-live': 'evaluated outside production',
  live: 'evaluated in production',
  completed: 'the decision is made; remove the flag from the code',
  archived: 'no longer served',
}

export function Lifecycle ({ feature }: { feature: FeatureDetails }) {
  const stages = useLifecycle(feature.project, feature.name)
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [completing, setCompleting] = useState(false)
  const current = feature.lifecycle
  const refresh = () => Promise.all([
    client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) }),
    client.invalidateQueries({ queryKey: keys.lifecycle(feature.project, feature.name) }),
    client.invalidateQueries({ queryKey: keys.features(feature.project) }),
  ])
  const uncomplete = useMutation({
    mutationFn: () => post(`${flagPath(feature.project, feature.name)}/lifecycle/uncomplete`),
    onSuccess: async () => {
      await refresh()
      announce('Marked not completed')
    },
  })
  const entered = new Map((stages.data ?? []).map((s) => [s.stage, s]))
  const canChange = session.can('change-flags') && current.stage !== 'archived'
  // The lifecycle read says, on its completed stage, when each environment last evaluated the flag.
  const stillEvaluated = current.stage === 'completed' ? entered.get('completed')?.lastEvaluated ?? current.lastEvaluated ?? [] : []
  return (
    <section aria-labelledby='lifecycle-heading' className='lifecycle'>
      <h2 id='lifecycle-heading'>Lifecycle</h2>
      <ol className='timeline'>
        {ORDER.filter((s) => s !== 'archived' || entered.has(s)).map((stage) => {
          const at = entered.get(stage)
          const isCurrent = stage === current.stage
          return (
            <li key={stage} className={`${at ? 'done' : 'todo'}${isCurrent ? ' current' : ''}`} aria-current={isCurrent ? 'step' : undefined}>
              <strong>{STAGE_LABELS[stage]}</strong>
              <span className='muted'> — {MEANING[stage]}</span>
              <br />
              {at ? <small>Since <Time value={at.enteredStageAt} /></small> : <small>Not yet</small>}
              {stage === 'completed' && at?.status && (
                <small> · {at.status === 'kept' ? 'Kept' : 'Discarded'}{at.statusValue ? `: ${at.statusValue}` : ''}</small>
              )}
            </li>
          )
        })}
      </ol>
      {stillEvaluated.length > 0 && (
        <div className='alert warning' role='note'>
          <p><strong>Completed, but SDKs still evaluate this flag.</strong> The code that asks for it has not been removed yet:</p>
          <ul>{stillEvaluated.map((e) => <li key={e.environment}>{e.environment}: last evaluated <Time value={e.lastEvaluatedAt} /></li>)}</ul>
        </div>
      )}
      {canChange && (
        <div className='row'>
          {current.stage === 'completed'
            ? <button type='button' className='secondary' onClick={() => uncomplete.mutate()} aria-busy={uncomplete.isPending || undefined}>Uncomplete</button>
            : <button type='button' onClick={() => setCompleting(true)}>Mark completed</button>}
          {current.stage === 'completed' && <button type='button' className='secondary outline' onClick={() => setCompleting(true)}>Change the outcome</button>}
        </div>
      )}
      <ErrorAlert error={uncomplete.error} />
      {completing && <CompleteDialog feature={feature} onClose={() => setCompleting(false)} onDone={refresh} />}
    </section>
  )
}

function CompleteDialog ({ feature, onClose, onDone }: { feature: FeatureDetails; onClose: () => void; onDone: () => Promise<unknown> }) {
  const [status, setStatus] = useState<'kept' | 'discarded' | ''>(feature.lifecycle.status ?? '')
  const [statusValue, setStatusValue] = useState(feature.lifecycle.statusValue ?? '')
  const announce = useAnnounce()
  const complete = useMutation({
    mutationFn: () => post(`${flagPath(feature.project, feature.name)}/lifecycle/complete`, { status, ...(statusValue.trim() ? { statusValue: statusValue.trim() } : {}) }),
    onSuccess: async () => {
      await onDone()
      announce(`${feature.name} marked completed as ${status}`)
      onClose()
    },
  })
  const submit = submitting(() => status && complete.mutate())
  return (
    <Dialog title={`Mark ${feature.name} completed`} open onClose={onClose}>
      <form onSubmit={submit}>
        <p>Completing records the decision: the flag stays served until you archive it, and its code should be removed.</p>
        <fieldset>
          <legend>What happens to the feature?</legend>
          <label><input type='radio' name='status' value='kept' checked={status === 'kept'} onChange={() => setStatus('kept')} /> Kept — the feature stays in the product</label>
          <label><input type='radio' name='status' value='discarded' checked={status === 'discarded'} onChange={() => setStatus('discarded')} /> Discarded — the feature is removed</label>
        </fieldset>
        {status && (
          <TextField
            label={status === 'kept' ? 'Which variant or version was kept (optional)' : 'Why it was discarded (optional)'}
            value={statusValue}
            onChange={setStatusValue}
            maxLength={1000}
            errors={errorsAt(complete.error, '/statusValue')}
          />
        )}
        <ErrorAlert error={complete.error} shownAt={['/statusValue']} />
        <FormButtons onCancel={onClose} label='Confirm' busy={complete.isPending} disabled={!status || complete.isPending} />
      </form>
    </Dialog>
  )
}
