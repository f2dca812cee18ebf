import { useState } from 'react'
import { type CompletionStatus, STAGES, type StageName } from '../../../src/vocabulary/stages'
import type { FeatureDetails } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { ErrorAlert, errorsAt, Time } from '../../components/feedback'
import { TextField } from '../../components/form'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { STAGE_LABELS } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useComplete, useLifecycle, useUncomplete } from './api'

const MEANING: Record<StageName, string> = {
  initial: 'created, no SDK has asked for it yet',
  'pre-live': 'evaluated outside production',
  live: 'evaluated in production',
  completed: 'the decision is made; remove the flag from the code',
  archived: 'no longer served',
}

/** A flag's stages as a timeline, and marking it completed (kept or discarded) or not. */
export function Lifecycle ({ feature }: { feature: FeatureDetails }) {
  const stages = useLifecycle(feature)
  const session = useSession()
  const announce = useAnnounce()
  const [completing, setCompleting] = useState(false)
  const current = feature.lifecycle
  const uncomplete = useUncomplete(feature, { onSuccess: () => announce('Marked not completed') })
  const entered = new Map((stages.data ?? []).map((s) => [s.stage, s]))
  const canChange = session.can('change-flags', feature.project) && current.stage !== 'archived'
  // The lifecycle read says, on its completed stage, when each environment last evaluated the flag.
  const stillEvaluated = current.stage === 'completed' ? entered.get('completed')?.lastEvaluated ?? current.lastEvaluated ?? [] : []
  return (
    <section aria-labelledby='lifecycle-heading' className='lifecycle'>
      <h2 id='lifecycle-heading'>Lifecycle</h2>
      <ol className='timeline'>
        {STAGES.filter((s) => s !== 'archived' || entered.has(s)).map((stage) => {
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
      {completing && <CompleteDialog feature={feature} onClose={() => setCompleting(false)} />}
    </section>
  )
}

function CompleteDialog ({ feature, onClose }: { feature: FeatureDetails; onClose: () => void }) {
  const [status, setStatus] = useState<CompletionStatus | ''>(feature.lifecycle.status ?? '')
  const [statusValue, setStatusValue] = useState(feature.lifecycle.statusValue ?? '')
  const done = useSayAndClose(onClose)
  const complete = useComplete(feature, done((_d, { status }) => `${feature.name} marked completed as ${status}`))
  return (
    <FormDialog
      title={`Mark ${feature.name} completed`}
      onClose={onClose}
      onSubmit={() => status && complete.mutate({ status, ...(statusValue.trim() ? { statusValue: statusValue.trim() } : {}) })}
      write={complete}
      shownAt={['/statusValue']}
      submitLabel='Confirm'
      disabled={!status || complete.isPending}
    >
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
    </FormDialog>
  )
}
