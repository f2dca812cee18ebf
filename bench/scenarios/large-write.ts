import { call, variantsPath } from '../lib/api.js'
import type { Row, Target } from '../lib/measure.js'

/**
 * What a body-limit-sized write does to everyone else: /health asked over and over while a PUT
 * of about 1 MB (1,000 variants with 900-character payloads) is parsed, checked and stored.
 * p99 ms is the slowest /health answer during the PUTs (the target: under 50 ms, so that one
 * large write never stalls the instance's other traffic); p50 ms is their median.
 */
export async function largeWriteScenario (server: Target): Promise<Row[]> {
  const name = 'bench-large-put'
  await call(server, 'POST', '/api/admin/projects/default/features', { name })
  const body = (round: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      name: `v${round}-${i}`,
      weight: 0,
      payload: { type: 'string', value: String(i).padEnd(900, 'x') },
    }))
  await call(server, 'PUT', variantsPath(name), body(0)) // warm up
  const probes: number[] = []
  const puts: number[] = []
  for (let round = 1; round <= 10; round++) {
    const putting = { on: true }
    const prober = (async () => {
      while (putting.on) {
        const started = performance.now()
        const res = await fetch(`${server.base}/health`)
        await res.arrayBuffer()
        probes.push(performance.now() - started)
      }
    })()
    const started = performance.now()
    await call(server, 'PUT', variantsPath(name), body(round))
    puts.push(performance.now() - started)
    putting.on = false
    await prober
  }
  const sorted = [...probes].sort((a, b) => a - b)
  const round1 = (n: number) => Math.round(n * 10) / 10
  return [{
    scenario: `GET /health during a 1 MB variants PUT (10 PUTs, median ${round1(puts.sort((a, b) => a - b)[5]!)} ms each; p99 ms = the slowest answer, target < 50)`,
    reqPerSec: 0,
    p50Ms: round1(sorted[Math.floor(sorted.length / 2)]!),
    p99Ms: round1(sorted[sorted.length - 1]!),
    errors: 0,
  }]
}
