// The one shape of a write: send it, read again what it changed, then let the screen go on.
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query'
import { keys } from './keys'

/** What a screen does once a write is done and what it changed is read again: announce, close. */
export interface AfterWrite<V, D> {
  onSuccess?: (data: D, variables: V) => unknown
}

/**
 * A write of the admin API. `changes` names the reads it changed (their keys, from keys.ts): they
 * are read again, and the history with them (every change records an event), before
 * `after.onSuccess` runs, so that what the screen shows next is what is stored. A refusal stays
 * in `error` for the screen to show; a 401 anywhere signs the person out (main.tsx).
 */
export function useWrite<V = void, D = unknown> (
  write: (variables: V) => Promise<D>,
  changes: (variables: V, data: D) => readonly QueryKey[],
  after: AfterWrite<V, D> = {}
) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: write,
    onSuccess: async (data, variables) => {
      await Promise.all([...changes(variables, data), keys.events].map((queryKey) => client.invalidateQueries({ queryKey })))
      await after.onSuccess?.(data, variables)
    },
  })
}
