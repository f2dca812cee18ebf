/**
 * Measuring: drive a target with autocannon (`load`) or time one piece of work (`once`), the
 * server's CPU time and memory from /proc, and the tables printed.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { SECONDS } from './settings.js'

export interface Row {
  scenario: string
  /** Server CPU time (user + system) per answered request, in milliseconds. */
  cpuMsPerRequest?: number
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  errors: number
  /** The answers counted in `errors`, by status (and `error`, `timeout` for no answer). */
  unexpected?: Record<string, number>
  rssMb?: number
  /** reqPerSec ÷ the mean of the floor measured before and after. */
  ratio?: number
}

export interface Target {
  base: string
  headers: Record<string, string>
  /** The server's process, when this machine runs it (CPU time and memory from /proc). */
  pid?: number
}

/** One import or export, timed, with the server's CPU time and peak memory while it ran. */
export interface OnceRow {
  scenario: string
  ms: number
  cpuMs?: number
  peakRssMb?: number
}

/** CPU time (user + system) a process has used, in milliseconds, from /proc/<pid>/stat. */
export function cpuMs (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / CLOCK_TICKS
}

/** Clock ticks per second of /proc times (USER_HZ; 100 on Linux). */
export const CLOCK_TICKS = 100

export function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** Drives a target; `next` makes each request, and every one of them is a real change. */
export async function load (
  target: Target,
  scenario: string,
  connections: number,
  next: (i: number) => { path: string; method: 'PATCH' | 'POST' | 'GET'; body?: string },
  pid?: number,
  expected: number[] = [200, 201],
  seconds = SECONDS,
  /** Instead of `seconds`: this many requests. */
  amount?: number
): Promise<Row> {
  let counter = 0
  let peakRss = 0
  const cpuBefore = pid === undefined ? undefined : cpuMs(pid)
  const sampler = pid === undefined ? undefined : setInterval(() => { peakRss = Math.max(peakRss, rssMb(pid)) }, 250)
  const result = await autocannon({
    url: target.base,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    requests: [
      {
        setupRequest: (req) => {
          const r = next(counter++)
          return { ...req, method: r.method, path: r.path, body: r.body, headers: { ...target.headers } }
        },
      },
    ],
  })
  clearInterval(sampler)
  const unexpected: Record<string, number> = {}
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    if (!expected.includes(Number(code))) unexpected[code] = (stat as { count?: number }).count ?? 0
  }
  if (result.errors > 0) unexpected.error = result.errors
  if (result.timeouts > 0) unexpected.timeout = result.timeouts
  const answered = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => expected.includes(Number(code)))
    .reduce((sum, [, stat]) => sum + ((stat as { count?: number }).count ?? 0), 0)
  return {
    scenario,
    ...(pid !== undefined && cpuBefore !== undefined && answered > 0 && {
      cpuMsPerRequest: Number(((cpuMs(pid) - cpuBefore) / answered).toFixed(3)),
    }),
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors:
      result.errors +
      result.timeouts +
      Object.entries(result.statusCodeStats ?? {})
        .filter(([code]) => !expected.includes(Number(code)))
        .reduce((sum, [, stat]) => sum + ((stat as { count?: number }).count ?? 0), 0),
    ...(Object.keys(unexpected).length > 0 && { unexpected }),
    ...(pid !== undefined && { rssMb: Math.round(peakRss) }),
  }
}

/** Runs `work` once, timing it and sampling the server's memory every 50 ms. */
export async function once (scenario: string, pid: number | undefined, work: () => Promise<void>): Promise<OnceRow> {
  let peak = pid === undefined ? 0 : rssMb(pid)
  const sampler = pid === undefined ? undefined : setInterval(() => { peak = Math.max(peak, rssMb(pid)) }, 50)
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid)
  const started = performance.now()
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  const ms = Math.round(performance.now() - started)
  return { scenario, ms, ...(pid !== undefined && { cpuMs: Math.round(cpuMs(pid) - cpuBefore), peakRssMb: Math.round(Math.max(peak, rssMb(pid))) }) }
}

/** Median of a list of numbers. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

export function printOnce (title: string, rows: OnceRow[]) {
  console.log(`\n${title}`)
  console.table(rows.map((r) => ({ scenario: r.scenario, ms: r.ms, 'server CPU ms': r.cpuMs ?? '', 'peak RSS MB': r.peakRssMb ?? '' })))
}

export function print (title: string, rows: Row[]) {
  console.log(`\n${title}`)
  console.table(
    rows.map((r) => ({
      scenario: r.scenario,
      'req/s': r.reqPerSec,
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.unexpected ? `${r.errors} (${Object.entries(r.unexpected).map(([k, v]) => `${k}: ${v}`).join(', ')})` : r.errors,
      'RSS MB': r.rssMb ?? '',
      'CPU ms/req': r.cpuMsPerRequest ?? '',
      '÷ floor': r.ratio ?? '',
    }))
  )
}
