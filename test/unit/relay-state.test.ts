/**
 * A relay's memory, as pure code: the server-sent events reader (events however the bytes are
 * cut into chunks, comments, CRLF, several data lines, the line bound) and the flags scopes
 * share (one object for a feature several scopes hold, a change in one scope leaving the
 * others as they are).
 */
import { describe, expect, it } from 'vitest'
import type { ClientFeature } from '../../src/client/client.schemas.js'
import { ScopeState } from '../../src/relay/scope.js'
import { readEvents, type ServerSentEvent } from '../../src/relay/sse.js'

async function * chunks (text: string, size: number) {
  const bytes = new TextEncoder().encode(text)
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

async function read (text: string, size: number, maxLineBytes?: number) {
  const events: ServerSentEvent[] = []
  let calls = 0
  await readEvents(chunks(text, size), () => { calls++ }, (e) => events.push(e), maxLineBytes)
  return { events, calls }
}

describe('readEvents', () => {
  const big = JSON.stringify({ events: [{ type: 'hydration', features: Array.from({ length: 300 }, (_, i) => ({ name: `f-${i}`, description: 'é→✓ 😀' })) }] })
  const text = `: keep-alive\n\nevent: unleash-connected\r\nid: 12\r\ndata: ${big}\r\n\r\n:ka\n\nevent: unleash-updated\nid:13\ndata: {"a":1}\ndata:{"b":2}\n\ndata: plain\n\n`

  it('reads the same events whatever the chunks: one byte at a time, odd sizes, all at once', async () => {
    const expected = [
      { event: 'unleash-connected', id: '12', data: big },
      { event: 'unleash-updated', id: '13', data: '{"a":1}\n{"b":2}' },
      { event: 'message', id: undefined, data: 'plain' },
    ]
    for (const size of [1, 7, 1000, 65_536, 10_000_000]) {
      const { events, calls } = await read(text, size)
      expect(events).toEqual(expected)
      expect(calls).toBe(Math.ceil(new TextEncoder().encode(text).length / size))
    }
  })

  it('an unfinished line longer than the bound ends the stream with an error', async () => {
    await expect(read(`data: ${'x'.repeat(5000)}`, 100, 1000)).rejects.toThrow(/longer than 1000 bytes/)
    // A line that ends within the bound is read.
    expect((await read(`data: ${'x'.repeat(900)}\n\n`, 100, 1000)).events).toHaveLength(1)
  })
})

describe('scopes share what they hold alike', () => {
  const feature = (name: string, enabled: boolean): ClientFeature => ({ name, type: 'release', project: 'default', enabled, stale: false, impressionData: false, strategies: [{ name: 'default', constraints: [], parameters: {} }], variants: [], dependencies: [] } as unknown as ClientFeature)
  const next = (() => { let n = 0; return () => ++n })()

  it('one object for a feature two scopes hold (even from separate answers); a change in one leaves the other', () => {
    const a = new ScopeState('development', ['default', 'a'])
    const b = new ScopeState('development', ['default', 'b'])
    a.replace([feature('shared', true), feature('only-a', true)], [], 5n, next)
    b.replace([feature('shared', true)], [], 5n, next)
    const [inA, inB] = [a.snapshot().features.find((f) => f.name === 'shared'), b.snapshot().features[0]]
    expect(inA).toBe(inB)
    // The same state again is no change; a different one is.
    expect(a.replace([feature('shared', true), feature('only-a', true)], [], 6n, next)).toEqual([])
    const events = a.apply([{ type: 'feature-updated', eventId: 7, feature: feature('shared', false) }], 7n, next)
    expect(events).toEqual([{ type: 'feature-updated', eventId: 7, feature: feature('shared', false) }])
    expect(a.snapshot().features.find((f) => f.name === 'shared')?.enabled).toBe(false)
    expect(b.snapshot().features[0]).toBe(inB)
    expect(inB?.enabled).toBe(true)
  })
})
