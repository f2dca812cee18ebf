/**
 * The change feed (src/events/change-feed.ts): a commit on one instance wakes the other at once
 * (LISTEN/NOTIFY), and a change made while an instance's LISTEN
 * connection was down is caught up when it listens again.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase, type DatabaseHandle, LISTEN_APPLICATION_NAME } from '../../../src/db/database.js'
import { auth, buildTestApp, createFeature, json, type TestApp, testConfig } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

// The client state version is kept a minute: only a wake can make an instance see a change sooner.
const env = { CLIENT_STATE_CACHE_MS: '60000' }

let first: TestApp
let second: { app: App; database: DatabaseHandle }
/** Closed while set: the second instance cannot LISTEN again until the test opens it. */
let gate: { promise: Promise<void>; open: () => void } | undefined
let clientSecret = ''

beforeAll(async () => {
  first = await buildTestApp(env)
  const config = testConfig(first.databaseUrl, env)
  const database = await createDatabase(config)
  const gated: DatabaseHandle = {
    ...database,
    listen: async (channel, handlers) => {
      await gate?.promise
      return database.listen(channel, handlers)
    },
  }
  second = { app: await buildApp(config, { database: gated }), database }
  await second.app.ready()
  clientSecret = await requests(first).clientToken()
})
afterAll(async () => {
  gate?.open()
  await second.app.close()
  await second.database.db.destroy()
  await first.close()
})

/** Resolves at the next wake of `app`'s change feed. */
const nextWake = (app: App) =>
  new Promise<void>((resolve) => {
    const unsubscribe = app.changes.subscribe(() => {
      unsubscribe()
      resolve()
    })
  })

/** The feature names an SDK polling `app` is served. */
const served = async (app: App) => {
  const res = await app.inject({ method: 'GET', url: '/api/client/features', headers: auth(clientSecret) })
  expect(res.statusCode).toBe(200)
  return (json(res).features as { name: string }[]).map((f) => f.name)
}

/** Polls until `check` holds (a wait for an event, not a measure of time). */
async function until (check: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('the condition never held')
}

describe('the change feed', () => {
  it('a write through one instance wakes the other, whose SDKs are served the change at once', async () => {
    expect(second.app.changes.listening).toBe(true)
    await served(second.app) // the version is now kept for a minute
    const woken = nextWake(second.app)
    const feature = await createFeature(first.app)
    await woken
    expect(await served(second.app)).toContain(feature)
  })

  it('a change committed while the LISTEN connection was down is caught up when it is back', async () => {
    let open!: () => void
    gate = { promise: new Promise<void>((resolve) => { open = resolve }), open: () => open() }
    const known = await served(second.app)
    const admin = new pg.Client({ connectionString: first.databaseUrl })
    await admin.connect()
    try {
      // Both instances' LISTEN connections go; the first listens again at once, the second waits for the gate.
      const { rowCount } = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTEN_APPLICATION_NAME])
      expect(rowCount).toBe(2)
    } finally {
      await admin.end()
    }
    await until(() => !second.app.changes.listening)
    const wakes = second.app.changes.wakes
    const feature = await createFeature(first.app)
    // Nobody told the second instance: it still serves the state it kept.
    expect(await served(second.app)).toEqual(known)
    expect(second.app.changes.wakes).toBe(wakes)
    const caughtUp = nextWake(second.app)
    gate.open()
    await caughtUp
    expect(second.app.changes.listening).toBe(true)
    expect(await served(second.app)).toContain(feature)
    // And it hears the next change again as it happens.
    const woken = nextWake(second.app)
    const next = await createFeature(first.app)
    await woken
    expect(await served(second.app)).toContain(next)
  })
})
