import { useEffect, useState } from 'react'
import { useGuarded } from '../../api/change-requests'
import { ApiProblem } from '../../api/client'
import { useStickinessOptions } from '../../api/reads'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, QueryStatus } from '../../components/feedback'
import { submitting } from '../../components/form'
import { JsonDiff } from '../../components/json-diff'
import { VariantsEditor } from '../../components/variants-editor'
import { useAnnounce } from '../../lib/announce'
import { percent } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { distribute, draftToVariant, payloadProblem, type VariantDraft, variantToDraft } from '../../lib/variants'
import { type Loaded, readVariants, useProposeVariants, useSaveVariants, useVariants } from './api'

/** A flag's variants, per environment. */
export function FlagVariants ({ feature }: { feature: FeatureDetails }) {
  return (
    <section aria-labelledby='variants-heading'>
      <h2 id='variants-heading'>Variants</h2>
      <p className='muted'>
        Variants give users of a flag that is on one of several values. Fixed variants get the percentage you give them;
        variable variants share what is left equally. The split holds per user, by the stickiness field.
      </p>
      {feature.environments.map((env) => <EnvironmentVariants key={env.name} feature={feature} environment={env.name} />)}
    </section>
  )
}

const isConflict = (error: unknown) => error instanceof ApiProblem && error.status === 412

function EnvironmentVariants ({ feature, environment }: { feature: FeatureDetails; environment: string }) {
  const loaded = useVariants(feature, environment)
  const session = useSession()
  const canChange = session.can('change-flags', feature.project) && feature.lifecycle.stage !== 'archived'
  const stickinessOptions = useStickinessOptions()
  const announce = useAnnounce()
  /** What the edits started from: the patch is computed against it, and If-Match carries its ETag. */
  const [base, setBase] = useState<Loaded | null>(null)
  const [drafts, setDrafts] = useState<VariantDraft[]>([])
  const [conflict, setConflict] = useState<Loaded | null>(null)
  const startFrom = (next: Loaded) => {
    setBase(next)
    setDrafts(next.variants.map(variantToDraft))
    setConflict(null)
  }
  useEffect(() => {
    if (loaded.data && !base) {
      setBase(loaded.data)
      setDrafts(loaded.data.variants.map(variantToDraft))
    }
  }, [loaded.data, base])

  const save = useSaveVariants(feature, environment, {
    onSuccess: (saved) => {
      startFrom(saved)
      announce(`Variants saved in ${environment}`)
    },
  })
  const saveFrom = (from: Loaded) => save.mutate({ from, variants: drafts.map(draftToVariant) }, {
    onError: async (error) => {
      if (isConflict(error)) setConflict(await readVariants(feature, environment))
    },
  })
  // With change requests on here, the variants wanted go to the caller's change request instead.
  const guarded = useGuarded(feature.project)(environment)
  const proposal = useProposeVariants(feature, environment, {
    onSuccess: () => {
      // The change waits in the request: the editor shows what is stored again.
      if (base) setDrafts(base.variants.map(variantToDraft))
      announce(`The variants are added to your change request in ${environment}`)
    },
  })
  const write = guarded ? proposal : save
  const submit = submitting(() => base && (guarded ? proposal.mutate(drafts.map(draftToVariant)) : saveFrom(base)))
  const dirty = base !== null && JSON.stringify(drafts.map(draftToVariant)) !== JSON.stringify(base.variants)
  const invalid = distribute(drafts).problem !== null || drafts.some((d) => payloadProblem(d.payloadType, d.payloadValue) !== null)
  const headingId = `variants-${environment}`
  return (
    <section className='card' aria-labelledby={headingId}>
      <h3 id={headingId}>Variants in {environment}</h3>
      <QueryStatus query={loaded} what='Loading variants' />
      {base && !canChange && (
        base.variants.length === 0
          ? <p className='muted'>No variants.</p>
          : <ul>{base.variants.map((v) => <li key={v.name}>{v.name}: {percent(v.weight)} ({v.weightType === 'fix' ? 'fixed' : 'variable'}){v.payload ? `, payload ${v.payload.type}` : ''}</li>)}</ul>
      )}
      {base && canChange && (
        <form onSubmit={submit}>
          {guarded && <p className='alert info'>Changes in {environment} need a change request: saving adds the variants to yours, for someone else to approve.</p>}
          <VariantsEditor drafts={drafts} onChange={setDrafts} error={write.error} pathPrefix={guarded ? '/variants' : ''} stickinessOptions={stickinessOptions} />
          {conflict && base && (
            <div className='alert warning' role='alert'>
              <p><strong>Someone else changed the variants in {environment} while you were editing.</strong> Nothing of yours was saved. This is what changed:</p>
              <JsonDiff before={base.variants} after={conflict.variants} />
              <div className='row'>
                <button type='button' className='secondary' onClick={() => { startFrom(conflict); save.reset() }}>
                  Discard my edits and show theirs
                </button>
                <button type='button' onClick={() => saveFrom(conflict)}>Save my version over theirs</button>
              </div>
            </div>
          )}
          {!isConflict(write.error) && <ErrorAlert error={write.error} shownAt={drafts.map((_, i) => `${guarded ? '/variants' : ''}/${i}`)} />}
          <div className='row'>
            <button type='submit' disabled={!dirty || invalid || write.isPending} aria-busy={write.isPending || undefined}>{guarded ? 'Request change' : 'Save'}<span className='visually-hidden'> variants in {environment}</span></button>
            {dirty && <button type='button' className='secondary outline' onClick={() => { setDrafts(base.variants.map(variantToDraft)); write.reset() }}>Undo my edits</button>}
          </div>
        </form>
      )}
    </section>
  )
}
