import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { openDatabase } from '../../../src/startup.js'
import { auth, expectProblem, json } from '../../helpers/app.js'
import { unstorableCases } from '../../helpers/unstorable.js'

const dataDir = mkdtempSync(join(tmpdir(), 'ffapi-embedded-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const quiet = { info () {}, warn () {} }

async function start () {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', INIT_ADMIN_API_TOKENS: 'embedded-admin', PASSWORD_HASH_COST: '12' })
  // The first start prints the generated admin password: not into the test's output.
  const database = await openDatabase(config, quiet, () => {})
  const app = await buildApp(config, { database })
  return {
    app,
    mode: database.mode,
    async stop () {
      await app.close()
      await database.db.destroy()
    },
  }
}

describe('embedded database (no DATABASE_URL)', () => {
  it('a first start creates an admin token and the user admin, leaves their secrets in DATA_DIR (0600) and prints them once', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'ffapi-first-start-'))
    try {
      const config = loadConfig({ DATA_DIR: fresh, LOG_LEVEL: 'silent', PASSWORD_HASH_COST: '12' })
      const printed: string[] = []
      const logged: string[] = []
      const log = { info (obj: object, msg: string) { logged.push(`${msg} ${JSON.stringify(obj)}`) }, warn () {} }
      const database = await openDatabase(config, log, (line) => printed.push(line))
      const file = join(fresh, 'admin-token')
      const passwordFile = join(fresh, 'admin-password')
      const secret = readFileSync(file, 'utf8').trim()
      const password = readFileSync(passwordFile, 'utf8').trim()
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600)
      expect(password.length).toBeGreaterThanOrEqual(20)
      expect(printed).toEqual([
        `Admin login: admin, password (also in ${passwordFile}): ${password}`,
        `Admin API token (also in ${file}): ${secret}`,
      ])
      expect(logged.some((line) => line.includes(file) && !line.includes(secret))).toBe(true)
      expect(logged.some((line) => line.includes(passwordFile))).toBe(true)
      expect(logged.join('\n')).not.toContain(password)
      const app = await buildApp(config, { database })
      expect((await app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth(secret) })).statusCode).toBe(200)
      const login = await app.inject({ method: 'POST', url: '/auth/simple/login', payload: { username: 'admin', password } })
      expect(login.statusCode).toBe(200)
      expect(JSON.parse(login.body)).toMatchObject({ username: 'admin', rootRole: 1 })
      await app.close()
      await database.db.destroy()
      // The second start finds the token and the user: nothing is created or printed again.
      const again = await openDatabase(config, quiet, (line) => printed.push(line))
      await again.db.destroy()
      expect(printed).toHaveLength(2)
      expect(readFileSync(file, 'utf8').trim()).toBe(secret)
      expect(readFileSync(passwordFile, 'utf8').trim()).toBe(password)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  }, 90_000)

  it('runs the same migrations and API, and keeps the data across a restart', async () => {
    const first = await start()
    expect(first.mode).toBe('embedded')
    const created = await first.app.inject({
      method: 'POST',
      url: '/api/admin/projects/default/features',
      headers: auth('embedded-admin'),
      payload: { name: 'kept-across-restart' },
    })
    expect(created.statusCode).toBe(201)
    const patched = await first.app.inject({
      method: 'PATCH',
      url: '/api/admin/projects/default/features/kept-across-restart/environments/production/variants',
      headers: auth('embedded-admin'),
      payload: [{ op: 'add', path: '/-', value: { name: 'blue', weight: 0 } }],
    })
    expect(patched.statusCode).toBe(200)
    await first.stop()

    const second = await start()
    try {
      const feature = await second.app.inject({
        method: 'GET',
        url: '/api/admin/projects/default/features/kept-across-restart',
        headers: auth('embedded-admin'),
      })
      expect(feature.statusCode).toBe(200)
      expect(json(feature).environments).toContainEqual({
        name: 'production',
        enabled: false,
        variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }],
        strategies: [],
        lastSeenAt: null,
      })
      const tokens = await second.app.inject({ method: 'GET', url: '/api/admin/api-tokens', headers: auth('embedded-admin') })
      expect(json(tokens).tokens).toHaveLength(1)
    } finally {
      await second.stop()
    }
  }, 120_000)

  it('a commit wakes the change feed (the one session LISTENs), and only a commit does; delta revisions work', async () => {
    const started = await start()
    try {
      await started.app.ready()
      expect(started.app.changes.listening).toBe(true)
      const woken = new Promise<void>((resolve) => started.app.changes.subscribe(resolve))
      const before = started.app.changes.wakes
      const refused = await started.app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: auth('embedded-admin'), payload: { name: 'a b' } })
      expect(refused.statusCode).toBe(400)
      expect(started.app.changes.wakes).toBe(before)
      const created = await started.app.inject({ method: 'POST', url: '/api/admin/projects/default/features', headers: auth('embedded-admin'), payload: { name: 'wakes-the-feed' } })
      expect(created.statusCode).toBe(201)
      await woken
      expect(started.app.changes.wakes).toBe(before + 1)
      // Revisions work on the embedded database too: a delta poll sees the feature after a hydration.
      const token = await started.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth('embedded-admin'), payload: { tokenName: 'embedded-sdk', type: 'client', environment: 'development' } })
      const secret = json(token).secret as string
      const hydration = await started.app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: secret } })
      expect(json(hydration).events[0].features.map((f: { name: string }) => f.name)).toContain('wakes-the-feed')
      const etag = hydration.headers.etag as string
      expect((await started.app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: secret, 'if-none-match': etag } })).statusCode).toBe(304)
      await started.app.inject({ method: 'POST', url: '/api/admin/projects/default/features/wakes-the-feed/environments/development/on', headers: auth('embedded-admin') })
      const next = await started.app.inject({ method: 'GET', url: '/api/client/delta', headers: { authorization: secret, 'if-none-match': etag } })
      expect(json(next).events).toEqual([{ type: 'feature-updated', eventId: expect.any(Number), feature: expect.objectContaining({ name: 'wakes-the-feed', enabled: true }) }])
    } finally {
      await started.stop()
    }
  }, 120_000)

  it('refuses NUL and lone surrogates with the same 400 as on PostgreSQL, storing nothing', async () => {
    const { app, stop } = await start()
    try {
      const headers = { ...auth('embedded-admin'), 'content-type': 'application/json' }
      const created = await app.inject({
        method: 'POST',
        url: '/api/admin/projects/default/features',
        headers,
        payload: { name: 'unstorable-target' },
      })
      expect(created.statusCode).toBe(201)
      const events = async () => json(await app.inject({ method: 'GET', url: '/api/admin/events', headers })).events.length
      const before = await events()
      for (const c of unstorableCases('unstorable-target')) {
        const res = await app.inject({
          method: c.method,
          url: c.url,
          headers,
          ...(c.body === undefined ? {} : { payload: JSON.stringify(c.body) }),
        })
        expect(expectProblem(res, 400, 'BadDataError').details[0].path, `${c.method} ${c.url}`).toBe(c.path)
      }
      expect(await events()).toBe(before)
    } finally {
      await stop()
    }
  }, 120_000)
})
