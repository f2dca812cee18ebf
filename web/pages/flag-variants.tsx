import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { createPatch } from 'rfc6902'
import { ApiProblem, flagPath, request, seg } from '../api'
import { useAnnounce } from '../announce'
import { JsonDiff } from '../components/diff'
import { ErrorAlert, QueryStatus, submitting } from '../components/ui'
import { draftToVariant, distribute, payloadProblem, type VariantDraft, VariantsEditor, variantToDraft } from '../components/variants'
import { keys } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails, Variant } from '../types'
import { useStickinessOptions } from './strategy'

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

interface Loaded { variants: Variant[]; etag: string | null }

function EnvironmentVariants ({ feature, environment }: { feature: FeatureDetails; environment: string }) {
  const path = `${flagPath(feature.project, feature.name)}/environments/${seg(environment)}/variants`
  const key = ['variants', feature.project, feature.name, environment]
  const loaded = useQuery({
    queryKey: key,
    queryFn: async (): Promise<Loaded> => {
      const answer = await request<{ variants: Variant[] }>('GET', path)
      return { variants: answer.data.variants, etag: answer.etag }
    },
  })
  const session = useSession()
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const stickinessOptions = useStickinessOptions()
  const client = useQueryClient()
  const announce = useAnnounce()
  /** What the edits started from: the patch is computed against it, and If-Match carries its ETag. */
  const [base, setBase] = useState<Loaded | null>(null)
  const [drafts, setDrafts] = useState<VariantDraft[]>([])
  const [conflict, setConflict] = useState<Loaded | null>(null)
  useEffect(() => {
    if (loaded.data && !base) {
      setBase(loaded.data)
      setDrafts(loaded.data.variants.map(variantToDraft))
    }
  }, [loaded.data, base])

  const save = useMutation({
    mutationFn: async ({ from }: { from: Loaded }) => {
      const patch = createPatch(from.variants, drafts.map(draftToVariant))
      return request<{ variants: Variant[] }>('PATCH', path, patch, from.etag ? { 'if-match': from.etag } : {})
    },
    onSuccess: async (answer) => {
      const next = { variants: answer.data.variants, etag: answer.etag }
      client.setQueryData(key, next)
      setBase(next)
      setDrafts(next.variants.map(variantToDraft))
      setConflict(null)
      await client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) })
      announce(`Variants saved in ${environment}`)
    },
    onError: async (error) => {
      if (error instanceof ApiProblem && error.status === 412) {
        const answer = await request<{ variants: Variant[] }>('GET', path)
        setConflict({ variants: answer.data.variants, etag: answer.etag })
      }
    },
  })
  const submit = submitting(() => base && save.mutate({ from: base }))
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
          : <ul>{base.variants.map((v) => <li key={v.name}>{v.name}: {(v.weight / 10).toFixed(1)}% ({v.weightType === 'fix' ? 'fixed' : 'variable'}){v.payload ? `, payload ${v.payload.type}` : ''}</li>)}</ul>
      )}
      {base && canChange && (
        <form onSubmit={submit}>
          <VariantsEditor drafts={drafts} onChange={setDrafts} error={save.error} pathPrefix='' stickinessOptions={stickinessOptions} />
          {conflict && base && (
            <div className='alert warning' role='alert'>
              <p><strong>Someone else changed the variants in {environment} while you were editing.</strong> Nothing of yours was saved. This is what changed:</p>
              <JsonDiff before={base.variants} after={conflict.variants} />
              <div className='row'>
                <button type='button' className='secondary' onClick={() => { setBase(conflict); setDrafts(conflict.variants.map(variantToDraft)); setConflict(null); save.reset() }}>
                  Discard my edits and show theirs
                </button>
                <button type='button' onClick={() => save.mutate({ from: conflict })}>Save my version over theirs</button>
              </div>
            </div>
          )}
          {!(save.error instanceof ApiProblem && save.error.status === 412) && <ErrorAlert error={save.error} shownAt={drafts.map((_, i) => `/${i}`)} />}
          <div className='row'>
            <button type='submit' disabled={!dirty || invalid || save.isPending} aria-busy={save.isPending || undefined}>Save<span className='visually-hidden'> variants in {environment}</span></button>
            {dirty && <button type='button' className='secondary outline' onClick={() => { setDrafts(base.variants.map(variantToDraft)); save.reset() }}>Undo my edits</button>}
          </div>
        </form>
      )}
    </section>
  )
}
