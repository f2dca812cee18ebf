/** The database floor: a write's transaction issued directly with pg, at the same concurrency, measured beside the server. */
import pg from 'pg'
import { floorWrite } from '../floor-transaction.mjs'
import type { Row } from './measure.js'
import { SECONDS } from './settings.js'

/**
 * The floor: what a variants change costs the database, issued directly with pg at the same
 * concurrency: lock the feature and its feature-environment, parse the variants, change one
 * field, write them back, insert the event with data and preData (and move the state version and
 * insert its webhook deliveries), commit: the service's statements.
 */
export async function floor (databaseUrl: string, names: string[], connections: number, label: string): Promise<Row> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections })
  const latencies: number[] = []
  let errors = 0
  let counter = 0
  const deadline = performance.now() + SECONDS * 1000
  const worker = async () => {
    const client = await pool.connect()
    try {
      while (performance.now() < deadline) {
        const feature = names[counter++ % names.length] as string
        const t0 = performance.now()
        try {
          await floorWrite(client, feature, `f${counter}`)
          latencies.push(performance.now() - t0)
        } catch {
          errors++
        }
      }
    } finally {
      client.release()
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  await pool.end()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => Number((latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(2))
  return {
    scenario: `floor: same transaction via pg (${label})`,
    reqPerSec: Math.round(latencies.length / SECONDS),
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    errors,
  }
}

/** The server scenario between a floor before and one after; its ratio is to their mean. */
export async function besideFloor (
  databaseUrl: string,
  names: string[],
  connections: number,
  run: () => Promise<Row>
): Promise<Row[]> {
  const before = await floor(databaseUrl, names, connections, 'before')
  const row = await run()
  const after = await floor(databaseUrl, names, connections, 'after')
  row.ratio = Number((row.reqPerSec / ((before.reqPerSec + after.reqPerSec) / 2)).toFixed(2))
  return [row, before, after]
}
