import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createPatch } from 'rfc6902'
import { propose, proposalReads } from '../../api/change-requests'
import { flagPath, request, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, Variant } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

/** An environment's variants with the ETag they were read with: a save sends it as If-Match. */
export interface Loaded { variants: Variant[]; etag: string | null }

const variantsPath = (flag: FlagRef, environment: string) => `${flagPath(flag)}/environments/${seg(environment)}/variants`

export async function readVariants (flag: FlagRef, environment: string): Promise<Loaded> {
  const answer = await request<{ variants: Variant[] }>('GET', variantsPath(flag, environment))
  return { variants: answer.data.variants, etag: answer.etag }
}

export const useVariants = (flag: FlagRef, environment: string) =>
  useQuery({ queryKey: keys.variants(flag, environment), queryFn: () => readVariants(flag, environment) })

/**
 * Saves `variants` as a JSON Patch against what the edits started `from`, with its ETag as
 * If-Match: when someone else saved meanwhile, the API refuses (412) and nothing is overwritten.
 * The answer is the new stored state: it becomes the read's data at once.
 */
export function useSaveVariants (flag: FlagRef, environment: string, after?: AfterWrite<{ from: Loaded; variants: Variant[] }, Loaded>) {
  const client = useQueryClient()
  const key = keys.variants(flag, environment)
  return useWrite(
    async ({ from, variants }: { from: Loaded; variants: Variant[] }): Promise<Loaded> => {
      const answer = await request<{ variants: Variant[] }>('PATCH', variantsPath(flag, environment), createPatch(from.variants, variants), from.etag ? { 'if-match': from.etag } : {})
      const saved = { variants: answer.data.variants, etag: answer.etag }
      client.setQueryData(key, saved)
      return saved
    },
    () => [keys.flag(flag)],
    after
  )
}

/** In an environment with change requests: the variants wanted are proposed (patchVariant) in the caller's request. */
export const useProposeVariants = (flag: FlagRef, environment: string, after?: AfterWrite<Variant[], unknown>) =>
  useWrite((variants: Variant[]) => propose(flag, environment, [{ feature: flag.name, action: 'patchVariant', payload: { variants } }]), () => proposalReads(flag), after)
