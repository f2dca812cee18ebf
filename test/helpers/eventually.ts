import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Until `check` returns something other than undefined or false (polled every 20 ms), which it
 * returns; or fails after `timeoutMs`, naming `what`.
 */
export async function eventually<T> (check: () => Promise<T | undefined | false>, what = 'the condition', timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await sleep(20)
  }
}
