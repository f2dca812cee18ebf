/**
 * Work an instance does outside any request (a flush, a pruner, a poller, a listener, the
 * streams): started when the app is ready, stopped when it closes. Every piece of background
 * work has this shape, and `Background` (background.ts) holds them all, in one list.
 */
export interface Worker {
  start(): void | Promise<void>
  /** Stops; resolves once nothing it started runs any more. Calling it again does nothing. */
  stop(): void | Promise<void>
}

export interface EveryOptions {
  /** When the first run comes after start (by default `ms`): a random delay keeps instances started together out of step. */
  firstAfterMs?: number
  /** Told when a run fails (throws or rejects); the next run comes as planned. */
  onError: (error: unknown) => void
}

/**
 * A worker that runs `job` every `ms`: each run `ms` after the previous one ended, so that runs
 * never overlap and a slow run delays the next instead of piling up behind it. Its timer does
 * not keep the process alive; `stop` waits for the run under way.
 */
export function every (ms: number, job: () => unknown, options: EveryOptions): Worker {
  let started = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  const schedule = (delayMs: number) => {
    timer = setTimeout(run, delayMs)
    timer.unref()
  }
  const run = () => {
    running = (async () => { await job() })()
      .catch(options.onError)
      .finally(() => {
        running = undefined
        if (started) schedule(ms)
      })
  }
  return {
    start () {
      if (started) return
      started = true
      schedule(options.firstAfterMs ?? ms)
    },
    async stop () {
      started = false
      clearTimeout(timer)
      await running
    },
  }
}
