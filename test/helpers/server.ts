import { setTimeout as sleep } from 'node:timers/promises'

/** Until a server started on `port` (the built one, in a child process) answers /ready with 200; about 15 s at most. */
export async function untilReady (port: number) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) return
    } catch {
      if (i > 300) throw new Error('server did not start')
      await sleep(50)
    }
  }
}
