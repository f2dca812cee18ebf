/**
 * Load benchmark: the compiled server on PostgreSQL, each scenario beside a floor (the same
 * database work issued directly with pg, no HTTP) measured in the same run.
 *
 *   npm run bench
 *
 * Settings: BENCH_SECONDS (per scenario, default 10), BENCH_CONNECTIONS (the 50-feature
 * scenarios, default 20), BENCH_SIZES (the document-size series, default 2,100,400,1000),
 * BENCH_ONLY=playground|series|features|client|frontend|cpu|large|webhooks|people|import|streaming|usage|relay|relay-streaming|insight (run one part), BENCH_FRONTEND_SIZES (the
 * frontend scenarios' flag counts, default 100,1000,5000). BENCH_UNLEASH=1: also start Unleash 8.2 on
 * the same PostgreSQL (test/helpers/unleash.ts) and drive it with the same series, side by side, its
 * server CPU time measured as ours; or UNLEASH_URL and UNLEASH_TOKEN (an admin token) name a running one.
 * Unleash's import needs a personal access token: made by the launcher, or UNLEASH_PAT with UNLEASH_URL.
 *
 * PostgreSQL is found as the tests find it (TEST_DATABASE_URL, Testcontainers, local binaries).
 * Prints tables and writes them as JSON under bench/results/.
 *
 * This file is the runner: it starts the server and runs the parts of PARTS in order. Each part
 * (a family of scenarios) is a file of bench/scenarios/; what they share (settings, measuring,
 * the floors, the admin API calls, Unleash beside us) is in bench/lib/.
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { withClient, withDatabase } from '../test/helpers/database.js'
import { findPostgres, freePort } from '../test/helpers/postgres.js'
import type { Bench, Part } from './lib/bench.js'
import { print, printOnce, rssMb } from './lib/measure.js'
import { startServer, stopServer, waitReady } from './lib/server.js'
import { CLIENT_CONNECTIONS, CONNECTIONS, FEATURES, ONLY, PAYLOAD, SECONDS, SECRET, SERIES_CONNECTIONS } from './lib/settings.js'
import { unleashTarget, type UnleashTarget } from './lib/unleash.js'
import { clientPart } from './scenarios/client.js'
import { cpuScenario } from './scenarios/cpu.js'
import { featureScenarios } from './scenarios/features.js'
import { frontendPart } from './scenarios/frontend.js'
import { IMPORT_FEATURES, importPart } from './scenarios/import.js'
import { largeWriteScenario } from './scenarios/large-write.js'
import { peopleScenarios } from './scenarios/people.js'
import { PLAYGROUND_FLAGS, playgroundPart } from './scenarios/playground.js'
import { relayPart } from './scenarios/relay.js'
import { relayStreamingScenario } from './scenarios/relay-streaming.js'
import { sizeSeries } from './scenarios/series.js'
import { printStreaming, streamingScenarios } from './scenarios/streaming.js'
import { printUsage, usageScenarios } from './scenarios/usage.js'
import { insightPart, SEARCH_FLAGS } from './scenarios/insight.js'
import { printPace, webhookPaceScenarios } from './scenarios/webhooks-pace.js'
import { webhookScenarios } from './scenarios/webhooks.js'

const part = <R>(p: Part<R>) => p as Part<unknown>

/** The parts, in the order they run, each with its table's title. */
const PARTS = [
  // First: the playground evaluates every flag of the project, so it runs before the parts that leave theirs (it archives its own).
  part({
    only: 'playground',
    key: 'playground',
    run: playgroundPart,
    print: (rows) => print(`The playground over ${PLAYGROUND_FLAGS} flags of a rich state (server CPU per request)`, rows),
  }),
  part({
    only: 'cpu',
    key: 'cpu',
    run: (b) => cpuScenario(b.target, b.databaseUrl, b.pid),
    print: (rows) => print(`Server CPU time per PATCH, ${FEATURES} features, ${CONNECTIONS} connections (÷ floor: CPU per request)`, rows),
  }),
  part({
    only: 'series',
    key: 'series',
    run: (b) => sizeSeries(b.target, b.databaseUrl, b.pid, b.unleash),
    print: (rows) => print(`Document sizes: one PATCH of one operation, ${SERIES_CONNECTIONS} connections, ${PAYLOAD.length}-character payloads`, rows),
  }),
  part({
    only: 'features',
    key: 'features',
    run: (b) => featureScenarios(b.target, b.databaseUrl, b.pid),
    print: (rows) => print(`${FEATURES} features, ${CONNECTIONS} connections`, rows),
  }),
  part({ only: 'client', key: 'client', run: clientPart, print: (rows) => print('Client API (Unleash SDK polls)', rows) }),
  part({
    only: 'frontend',
    key: 'frontend',
    run: frontendPart,
    print: (rows) => print(`Frontend API and OFREP (browser SDK polls), ${CLIENT_CONNECTIONS} connections`, rows),
  }),
  // Printed only, as before: the results file has no key for it.
  part({ only: 'large', run: (b) => largeWriteScenario(b.target), print: (rows) => print('One large write beside other traffic', rows) }),
  part({
    only: 'webhooks',
    key: 'webhooks',
    run: (b) => webhookScenarios(b.target, b.pid),
    print: (rows) => print(`Webhooks: writes with and without deliveries, ${FEATURES} features, ${CONNECTIONS} connections`, rows),
  }),
  part({ only: 'webhooks', key: 'webhookPace', run: (b) => webhookPaceScenarios(b.target), print: printPace }),
  part({
    only: 'people',
    key: 'people',
    run: (b) => peopleScenarios(b.target, b.pid, b.unleash),
    print: (rows) => print('People: admin reads by API token, session and personal access token; refused logins', rows),
  }),
  part({ only: 'import', key: 'imports', run: importPart, print: (rows) => printOnce(`Import and export (features-batch), ${IMPORT_FEATURES} features`, rows) }),
  part({ only: 'streaming', key: 'streaming', run: (b) => streamingScenarios({ ...b.target, pid: b.pid }, b.databaseUrl), print: printStreaming }),
  part({ only: 'usage', key: 'usage', run: (b) => usageScenarios({ databaseUrl: b.databaseUrl, serverUrl: b.serverUrl, secret: b.secret }), print: printUsage }),
  part({ only: 'relay', key: 'relay', run: relayPart, print: (rows) => print(`Relay mode: the same SDK reads at the server and at a relay in front of it, ${CLIENT_CONNECTIONS} connections`, rows) }),
  part({ only: 'relay-streaming', key: 'relayStreaming', run: relayStreamingScenario, print: (rows) => printStreaming(rows, 'Streaming behind two relays') }),
  part({ only: 'insight', key: 'insight', run: insightPart, print: (rows) => print(`Insight: feature search at ${SEARCH_FLAGS} flags, a flag's usage read back`, rows) }),
]

async function main () {
  const postgres = await findPostgres({ durable: true })
  const dbName = `ffapi_bench_${randomBytes(4).toString('hex')}`
  await withClient(postgres.url, (c) => c.query(`CREATE DATABASE ${dbName}`))
  const databaseUrl = withDatabase(postgres.url, dbName)
  const port = await freePort()
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results'] : []
  let unleash: UnleashTarget | undefined
  try {
    unleash = await unleashTarget(postgres.url)
    // The first start migrates; the second measures start-up to ready on a migrated database.
    const first = startServer(databaseUrl, port)
    await waitReady(port, first.started, first.child)
    await stopServer(first.child)
    const server = startServer(databaseUrl, port, profile)
    const startupMs = Math.round(await waitReady(port, server.started, server.child))
    const pid = server.child.pid as number
    const target = { base: `http://127.0.0.1:${port}`, headers: { authorization: SECRET, 'content-type': 'application/json' } }
    const bench: Bench = { target, pid, databaseUrl, serverUrl: postgres.url, secret: SECRET, ...(unleash && { unleash }) }

    console.log(`${SECONDS}s per scenario, PostgreSQL from ${postgres.source} (durable: fsync and synchronous commit on), node ${process.version}`)
    const results: Record<string, unknown[]> = {}
    for (const { only, key, run, print } of PARTS) {
      const rows = ONLY === undefined || ONLY === only ? await run(bench) : []
      if (rows.length > 0) print(rows)
      if (key !== undefined) results[key] = rows
    }
    const idleRss = Math.round(rssMb(pid))
    await stopServer(server.child)
    console.log(`start-up to ready on a migrated database: ${startupMs} ms; RSS after the run: ${idleRss} MB`)

    const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`
    writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, startupMs, ...results }, null, 2))
    console.log(`written to ${file}`)
  } finally {
    await unleash?.stop()
    await withClient(postgres.url, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`))
    await postgres.stop()
  }
}

await main()
