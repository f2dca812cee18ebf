import { setTimeout as sleep } from 'node:timers/promises'

/** Until a server started on `port` (the built one, or the sources through tsx, in a child process) answers /ready with 200; about 60 s at most (tsx compiles the sources first, slow on a loaded machine). */
export async function untilReady (port: number) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) return
    } catch {
      if (i > 1200) throw new Error('server did not start')
      await sleep(50)
    }
  }
}
