import type { Target } from './measure.js'
import type { UnleashTarget } from './unleash.js'

/** What every part is given: the server under test, its database, and Unleash when it runs beside. */
export interface Bench {
  /** Our server, with the admin token. */
  target: Target
  /** Our server's process (CPU time and memory from /proc). */
  pid: number
  /** The bench database (the floors write to it directly). */
  databaseUrl: string
  /** The PostgreSQL maintenance database's URL. */
  serverUrl: string
  /** The admin token of our server. */
  secret: string
  unleash?: UnleashTarget
}

/** One part of the run: its name in BENCH_ONLY, its key in the results file (none: printed only), its rows, its table. */
export interface Part<R> {
  only: string
  key?: string
  run (bench: Bench): Promise<R[]>
  print (rows: R[]): void
}
