/** The built server (dist/server.js) as a child process: started, ready, stopped. */
import { type ChildProcess, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { SECRET } from './settings.js'

export function startServer (databaseUrl: string, port: number, extraArgs: string[] = []) {
  const started = performance.now()
  const child = spawn(process.execPath, [...extraArgs, 'dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      INIT_ADMIN_API_TOKENS: SECRET,
      NODE_ENV: 'production',
      // The webhook scenarios' receivers listen on loopback.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      // The login timing scenario fails on purpose, many times, from one address.
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000000',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return { child, started }
}

export async function waitReady (port: number, started: number, child?: ChildProcess): Promise<number> {
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`)
      await res.text()
      if (res.ok) return performance.now() - started
    } catch {
      // not listening yet
    }
    await sleep(5)
  }
}

export async function stopServer (child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}
