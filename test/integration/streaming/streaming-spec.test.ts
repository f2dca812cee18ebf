/**
 * The official client specification through the official Node SDK in streaming mode and in
 * delta-polling mode: every case gets the same answer as the same SDK polling the full state
 * (test/integration/client/client-spec.test.ts checks those answers against the specification).
 */
import { describe, expect, it } from 'vitest'
import { runCases, specFiles, startSdk, withSpecState } from '../../helpers/client-spec.js'

let cases = 0

describe('the client specification, streaming and polling deltas, against polling', () => {
  for (const file of specFiles()) {
    it(file, async () => {
      await withSpecState(file, async ({ spec, sdk, written, base, secret }) => {
        const polling = runCases(file, spec, sdk, written)
        const streaming = await startSdk(base, secret, { type: 'streaming' })
        const delta = await startSdk(base, secret, { type: 'polling', format: 'delta' })
        try {
          // Still streaming: a refused stream would have sent it back to polling, proving nothing.
          expect((streaming as unknown as { repository: { getMode(): string } }).repository.getMode()).toBe('streaming')
          expect(runCases(file, spec, streaming, written)).toEqual(polling)
          expect(runCases(file, spec, delta, written)).toEqual(polling)
          cases += polling.length
        } finally {
          streaming.destroy()
          delta.destroy()
        }
      })
    }, 60_000)
  }

  it('covered every case of the specification', () => {
    expect(cases).toBe(279)
  })
})
