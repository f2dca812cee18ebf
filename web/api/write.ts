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
      const reread = Promise.all([...changes(variables, data), keys.events].map((queryKey) => client.invalidateQueries({ queryKey })))
      await inAnswerOrder(reread, () => after.onSuccess?.(data, variables))
    },
  })
}

let lastAfter: Promise<unknown> = Promise.resolve()
const EARLIER_WAIT_MS = 5_000

/**
 * Runs `then` once `reread` is done and every earlier-answered write's own `then` has run. Two
 * writes close together (a comment, then Approve) share their reads again: a newer write's
 * re-read takes over the older one's, so both finish together, and without this the older
 * write's "Comment added" could be announced after, and instead of, "Change request #1 is
 * Approved".
 */
function inAnswerOrder (reread: Promise<unknown>, then: () => unknown): Promise<unknown> {
  // An earlier write whose reads hang does not hold this one's up for longer than a few seconds.
  const earlier = Promise.race([lastAfter.catch(() => {}), new Promise((resolve) => setTimeout(resolve, EARLIER_WAIT_MS))])
  const mine = Promise.all([reread, earlier]).then(then)
  lastAfter = mine.catch(() => {})
  return mine
}
