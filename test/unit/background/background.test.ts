/**
 * Background work in one shape: `every` (runs that never overlap, errors reported and the next
 * run kept, stop waiting for the run under way) and `Background` (start in order, stop in
 * reverse, those holding connections first, every worker stopped even when one fails).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Background } from '../../../src/background/background.js'
import { every, type Worker } from '../../../src/background/worker.js'

describe('every', () => {
  beforeEach(() => { vi.useFakeTimers() })
  afterEach(() => { vi.useRealTimers() })

  it('runs first after firstAfterMs, then ms after each run ended; never two at once', async () => {
    const runs: number[] = []
    let finish: (() => void) | undefined
    const worker = every(100, () => {
      runs.push(Date.now())
      return new Promise<void>((resolve) => { finish = resolve })
    }, { firstAfterMs: 10, onError: () => {} })
    const start = Date.now()
    worker.start()
    await vi.advanceTimersByTimeAsync(9)
    expect(runs).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(runs).toEqual([start + 10])
    // The run takes 500 ms: no second run meanwhile.
    await vi.advanceTimersByTimeAsync(500)
    expect(runs).toHaveLength(1)
    finish!()
    await vi.advanceTimersByTimeAsync(99)
    expect(runs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(runs).toEqual([start + 10, start + 610])
    finish!()
    await worker.stop()
  })

  it('reports a failed run (thrown or rejected) and runs again', async () => {
    const errors: unknown[] = []
    let n = 0
    const worker = every(50, () => {
      n++
      if (n === 1) throw new Error('thrown')
      if (n === 2) return Promise.reject(new Error('rejected'))
      return undefined
    }, { onError: (error) => errors.push(error) })
    worker.start()
    await vi.advanceTimersByTimeAsync(150)
    expect(n).toBe(3)
    expect(errors.map((e) => (e as Error).message)).toEqual(['thrown', 'rejected'])
    await worker.stop()
  })

  it('stop waits for the run under way and no run follows; start is idempotent', async () => {
    let runs = 0
    let finish: (() => void) | undefined
    const worker = every(10, () => {
      runs++
      return new Promise<void>((resolve) => { finish = resolve })
    }, { onError: () => {} })
    worker.start()
    worker.start()
    await vi.advanceTimersByTimeAsync(10)
    expect(runs).toBe(1)
    let stopped = false
    const stopping = Promise.resolve(worker.stop()).then(() => { stopped = true })
    await vi.advanceTimersByTimeAsync(100)
    expect(stopped).toBe(false)
    finish!()
    await stopping
    await vi.advanceTimersByTimeAsync(1000)
    expect(runs).toBe(1)
  })
})

describe('Background', () => {
  const recording = (log: string[], name: string, failStop = false): Worker => ({
    start: async () => { log.push(`start ${name}`) },
    stop: async () => {
      log.push(`stop ${name}`)
      if (failStop) throw new Error(`${name} broke`)
    },
  })

  it('starts in order; stops the connection holders first, then everything in reverse order', async () => {
    const log: string[] = []
    const background = new Background()
      .add('feed', recording(log, 'feed'))
      .add('flush', recording(log, 'flush'))
      .add('streams', recording(log, 'streams'), { endsConnections: true })
      .add('pruner', recording(log, 'pruner'))
    await background.start()
    expect(log.splice(0)).toEqual(['start feed', 'start flush', 'start streams', 'start pruner'])
    await background.stopConnections()
    expect(log.splice(0)).toEqual(['stop streams'])
    await background.stop()
    expect(log).toEqual(['stop pruner', 'stop streams', 'stop flush', 'stop feed'])
  })

  it('a worker that fails to stop does not keep the others running; the failure names it', async () => {
    const log: string[] = []
    const background = new Background()
      .add('feed', recording(log, 'feed'))
      .add('dispatcher', recording(log, 'dispatcher', true))
      .add('sweeper', recording(log, 'sweeper'))
    await expect(background.stop()).rejects.toThrow('stopping dispatcher failed')
    expect(log).toEqual(['stop sweeper', 'stop dispatcher', 'stop feed'])
  })
})
