/**
 * SDK usage as an operator and a hostile client see it: any report inside the limits is
 * stored, input is validated to what storage holds, storage stays bounded (caps per token,
 * retention), registrations of different tokens never overwrite each other, the lifecycle
 * only moves forward, and a token reads only its environments' usage.
 */
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { pruneUsage } from '../../../src/usage/pruner.service.js'
import { createDatabase } from '../../../src/db/database.js'
import { auth, buildTestApp, createFeature, expectProblem, json, testConfig, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint } from '../../helpers/state.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({ CLIENT_MAX_APPLICATIONS: '3', CLIENT_MAX_INSTANCES: '4' })

const { clientToken, send } = requests(t)

const now = () => new Date().toISOString()
const metrics = (secret: string, toggles: object, appName = 'usage-app', extra: object = {}) =>
  send('POST', '/api/client/metrics', { appName, instanceId: 'i-1', bucket: { start: now(), stop: now(), toggles }, ...extra }, secret)
const register = (secret: string, appName: string, instanceId: string, extra: object = {}) =>
  send('POST', '/api/client/register', { appName, instanceId, strategies: ['default'], started: now(), interval: 60000, ...extra }, secret)
/** Writes what the reports so far added (every USAGE_FLUSH_MS otherwise). */
const flush = () => t.app.usage.flush()
const stagesOf = async (feature: string, secret = undefined as string | undefined) =>
  json(await send('GET', `/api/admin/projects/default/features/${feature}/lifecycle`, undefined, secret))

describe('metrics reports inside the limits', () => {
  it('200 features × 60 variant counts (more than 65,535 values) are stored, not a 500', async () => {
    const secret = await clientToken()
    const features = await Promise.all(Array.from({ length: 200 }, () => createFeature(t.app)))
    const variants = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`v${i}`, i + 1]))
    const toggles = Object.fromEntries(features.map((f) => [f, { yes: 2, no: 1, variants }]))
    const res = await metrics(secret, toggles, 'big-report')
    expect(res.statusCode, res.body).toBe(202)
    await flush()
    const rows = await t.database.db
      .selectFrom('usage_counts as c')
      .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
      .select(['c.feature_name', 'c.yes', 'c.no', 'c.variants'])
      .where('a.app_name', '=', 'big-report')
      .execute()
    expect(rows).toHaveLength(200)
    for (const row of rows) expect(row).toMatchObject({ yes: '2', no: '1', variants })
  })

  it('variant counts of one feature, application and hour are merged by name, and capped at 100 names', async () => {
    const secret = await clientToken()
    const feature = await createFeature(t.app)
    const name = (i: number) => `a${String(i).padStart(3, '0')}`
    const first = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [name(i), 1]))
    const second = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [name(i + 60), 2]))
    // Merged in the stored row (a flush between the reports), and in memory (both in one flush).
    expect((await metrics(secret, { [feature]: { yes: 1, no: 0, variants: first } }, 'merge')).statusCode).toBe(202)
    await flush()
    expect((await metrics(secret, { [feature]: { yes: 1, no: 0, variants: second } }, 'merge')).statusCode).toBe(202)
    await flush()
    const other = await createFeature(t.app)
    expect((await metrics(secret, { [other]: { yes: 1, no: 0, variants: first } }, 'merge')).statusCode).toBe(202)
    expect((await metrics(secret, { [other]: { yes: 1, no: 0, variants: second } }, 'merge')).statusCode).toBe(202)
    await flush()
    const inMemory = await t.database.db.selectFrom('usage_counts').select(['yes', 'variants']).where('feature_name', '=', other).executeTakeFirstOrThrow()
    const row = await t.database.db.selectFrom('usage_counts').select(['yes', 'variants']).where('feature_name', '=', feature).executeTakeFirstOrThrow()
    expect(row.yes).toBe('2')
    expect(Object.keys(row.variants)).toHaveLength(100)
    // The 80 names already there stay (and add up); new names fill up to 100, in name order.
    expect(row.variants.a000).toBe(1)
    expect(row.variants.a079).toBe(3)
    expect(row.variants.a099).toBe(2)
    expect(row.variants.a100).toBeUndefined()
    expect(inMemory).toEqual(row)
  })
})

describe('input validated to what storage holds: 400 with the path, never 5xx', () => {
  it('names longer than the index holds, impossible dates; nothing stored', async () => {
    const secret = await clientToken()
    const feature = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    const long = 'v'.repeat(4000)
    const cases: [ReturnType<typeof metrics>, string][] = [
      [metrics(secret, { [feature]: { yes: 1, no: 0, variants: { [long]: 1 } } }), `/body/bucket/toggles/${feature}/variants/${long}`],
      [metrics(secret, { ['f'.repeat(101)]: { yes: 1, no: 0 } }), `/body/bucket/toggles/${'f'.repeat(101)}`],
      [metrics(secret, { [feature]: { yes: 1, no: 0, variants: { '': 1 } } }), `/body/bucket/toggles/${feature}/variants/`],
      [metrics(secret, {}, 'app', { bucket: { start: '2024-13-45T25:61:61Z', stop: now(), toggles: {} } }), '/body/bucket/start'],
      [register(secret, 'app', 'i', { started: '2024-13-45T25:61:61Z' }), '/body/started'],
      [register(secret, 'app', 'i', { started: '2023-02-29T10:00:00Z' }), '/body/started'],
    ]
    for (const [response, path] of cases) {
      const res = await response
      const body = expectProblem(res, 400, 'BadDataError')
      expect(body.details[0].path).toBe(path)
    }
    await flush()
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('usage storage is bounded', () => {
  it('a token may report CLIENT_MAX_APPLICATIONS applications: a new one past it is 400 naming the limit, old ones still count', async () => {
    const secret = await clientToken()
    const feature = await createFeature(t.app)
    for (const app of ['one', 'two', 'three']) expect((await metrics(secret, { [feature]: { yes: 1, no: 0 } }, app)).statusCode).toBe(202)
    await flush()
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await metrics(secret, { [feature]: { yes: 1, no: 0 } }, 'four'), 400, 'BadDataError')
    expect(refused.details[0].path).toBe('/body/appName')
    expect(refused.message).toContain('CLIENT_MAX_APPLICATIONS')
    await flush()
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await metrics(secret, { [feature]: { yes: 1, no: 0 } }, 'two')).statusCode).toBe(202)
    // Another token has caps of its own.
    expect((await metrics(await clientToken(), { [feature]: { yes: 1, no: 0 } }, 'four')).statusCode).toBe(202)
  })

  it('a token may have CLIENT_MAX_INSTANCES instances, even when registering concurrently', async () => {
    const secret = await clientToken()
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => register(secret, 'many', `i-${i}`)))
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(4)
    for (const r of results.filter((x) => x.statusCode !== 202)) {
      expect(expectProblem(r, 400, 'BadDataError').details[0].path).toBe('/body/instanceId')
    }
    // A known instance may always refresh itself.
    const known = results.findIndex((r) => r.statusCode === 202)
    expect((await register(secret, 'many', `i-${known}`)).statusCode).toBe(202)
    await flush()
    const stored = await t.database.db.selectFrom('usage_instances as i').innerJoin('usage_applications as a', 'a.id', 'i.application_id')
      .select('i.instance_id').where('a.app_name', '=', 'many').execute()
    expect(stored).toHaveLength(4)
  })

  it('counts past USAGE_RETENTION_DAYS, applications unseen as long and instances unseen for 48 hours are deleted', async () => {
    const secret = await clientToken()
    const feature = await createFeature(t.app)
    expect((await metrics(secret, { [feature]: { yes: 1, no: 0 } }, 'old-app')).statusCode).toBe(202)
    expect((await register(secret, 'old-app', 'old-instance')).statusCode).toBe(202)
    await flush()
    const mine = () => t.database.db.selectFrom('usage_applications').select('id').where('app_name', '=', 'old-app').execute()
    expect(await mine()).toHaveLength(1)
    // Three days later: the instance is gone, the counts and the application stay.
    await pruneUsage(t.database.db, 30, new Date(Date.now() + 3 * 86_400_000))
    expect(await t.database.db.selectFrom('usage_instances').select('instance_id').where('instance_id', '=', 'old-instance').execute()).toEqual([])
    expect(await t.database.db.selectFrom('usage_counts').select('feature_name').where('feature_name', '=', feature).execute()).toHaveLength(1)
    // Thirty-one days later: all of it.
    await pruneUsage(t.database.db, 30, new Date(Date.now() + 31 * 86_400_000))
    expect(await t.database.db.selectFrom('usage_counts').select('feature_name').where('feature_name', '=', feature).execute()).toEqual([])
    expect(await mine()).toEqual([])
  })

  it('stores a typical report compactly: the application name once, one row per feature', async () => {
    const secret = await clientToken()
    const features = await Promise.all(Array.from({ length: 20 }, () => createFeature(t.app)))
    const toggles = Object.fromEntries(features.map((f) => [f, { yes: 10, no: 2, variants: { red: 4, blue: 6 } }]))
    const appName = 'a-rather-long-application-name-that-is-stored-only-once'
    expect((await metrics(secret, toggles, appName)).statusCode).toBe(202)
    await flush()
    expect((await metrics(secret, toggles, appName)).statusCode).toBe(202)
    await flush()
    const apps = await t.database.db.selectFrom('usage_applications').select('id').where('app_name', '=', appName).execute()
    expect(apps).toHaveLength(1)
    const rows = await t.database.db.selectFrom('usage_counts').select(['yes', 'variants']).where('application_id', '=', apps[0]!.id).execute()
    expect(rows).toHaveLength(20)
    expect(rows[0]).toEqual({ yes: '20', variants: { red: 8, blue: 12 } })
  })
})

describe('registrations', () => {
  it('tokens of other environments and projects never overwrite each other', async () => {
    const development = await clientToken('development')
    const production = await clientToken('production', ['default'])
    expect((await register(development, 'shared-app', 'i-1', { sdkVersion: 'dev-sdk' })).statusCode).toBe(202)
    expect((await register(production, 'shared-app', 'i-1', { sdkVersion: 'prod-sdk' })).statusCode).toBe(202)
    await flush()
    const rows = await t.database.db
      .selectFrom('usage_instances as i')
      .innerJoin('usage_applications as a', 'a.id', 'i.application_id')
      .select(['a.environment', 'a.projects', 'i.sdk_version'])
      .where('a.app_name', '=', 'shared-app')
      .orderBy('a.environment')
      .execute()
    expect(rows).toEqual([
      { environment: 'development', projects: '["*"]', sdk_version: 'dev-sdk' },
      { environment: 'production', projects: '["default"]', sdk_version: 'prod-sdk' },
    ])
  })
})

describe('two tokens of the same environment and projects', () => {
  it('keep their applications, instances and counts apart, also when summed in one flush', async () => {
    const one = await clientToken('development')
    const two = await clientToken('development')
    const feature = await createFeature(t.app)
    expect((await register(one, 'same-name', 'i-1', { sdkVersion: 'one' })).statusCode).toBe(202)
    expect((await register(two, 'same-name', 'i-1', { sdkVersion: 'two' })).statusCode).toBe(202)
    expect((await metrics(one, { [feature]: { yes: 1, no: 0 } }, 'same-name')).statusCode).toBe(202)
    expect((await metrics(two, { [feature]: { yes: 5, no: 0 } }, 'same-name')).statusCode).toBe(202)
    await flush()
    const instances = await t.database.db.selectFrom('usage_instances as i').innerJoin('usage_applications as a', 'a.id', 'i.application_id')
      .select(['a.id', 'i.sdk_version']).where('a.app_name', '=', 'same-name').orderBy('i.sdk_version').execute()
    expect(instances.map((i) => i.sdk_version)).toEqual(['one', 'two'])
    expect(instances[0]!.id).not.toBe(instances[1]!.id)
    const counts = await t.database.db.selectFrom('usage_counts').select(['application_id', 'yes']).where('feature_name', '=', feature).orderBy('yes').execute()
    expect(counts).toEqual([{ application_id: instances[0]!.id, yes: '1' }, { application_id: instances[1]!.id, yes: '5' }])
  })
})

describe('the lifecycle only moves forward', () => {
  it('concurrent reports from production and development never move a live feature back to pre-live', async () => {
    const production = await clientToken('production')
    const development = await clientToken('development')
    const features = await Promise.all(Array.from({ length: 10 }, () => createFeature(t.app)))
    // Usage in production makes a feature live where it is on there.
    for (const f of features) await send('POST', `/api/admin/projects/default/features/${f}/environments/production/on`)
    const toggles = Object.fromEntries(features.map((f) => [f, { yes: 1, no: 0 }]))
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => metrics(i % 2 === 0 ? production : development, toggles, `race-${i % 2}`))
    )
    await flush()
    for (const feature of features) {
      const stages = (await stagesOf(feature)).map((s: { stage: string }) => s.stage)
      // live is entered; pre-live, if entered at all, came before it
      expect(stages.at(-1), `${feature}: ${stages.join(' → ')}`).toBe('live')
      expect(stages.filter((s: string) => s === 'live')).toHaveLength(1)
    }
  })

  it('usage never moves a completed or archived feature', async () => {
    const development = await clientToken('development')
    const completed = await createFeature(t.app)
    const archived = await createFeature(t.app)
    await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${completed}/lifecycle/complete`, headers: auth(), payload: { status: 'kept' } })
    await t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/features/${archived}`, headers: auth() })
    await metrics(development, { [completed]: { yes: 1, no: 0 }, [archived]: { yes: 1, no: 0 } })
    await flush()
    expect((await stagesOf(completed)).map((s: { stage: string }) => s.stage)).toEqual(['initial', 'completed'])
    expect((await stagesOf(archived)).map((s: { stage: string }) => s.stage)).toEqual(['initial', 'archived'])
  })
})

describe('lastEvaluated on the lifecycle read', () => {
  it("lists only the environments of the token's scope", async () => {
    const feature = await createFeature(t.app)
    await metrics(await clientToken('development'), { [feature]: { yes: 1, no: 0 } })
    await metrics(await clientToken('production'), { [feature]: { yes: 1, no: 0 } })
    await flush()
    await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/lifecycle/complete`, headers: auth(), payload: { status: 'kept' } })
    const all = (await stagesOf(feature)).find((s: { stage: string }) => s.stage === 'completed')
    expect(all.lastEvaluated.map((e: { environment: string }) => e.environment).sort()).toEqual(['development', 'production'])
    const scoped = await t.app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('dev-only'), environments: ['development'] } })
    const devOnly = (await stagesOf(feature, json(scoped).secret)).find((s: { stage: string }) => s.stage === 'completed')
    expect(devOnly.lastEvaluated).toEqual([{ environment: 'development', lastEvaluatedAt: expect.any(String) }])
  })
})

describe('reports are summed in memory and written in one flush', () => {
  const countsOf = (feature: string) =>
    t.database.db.selectFrom('usage_counts').select(['yes', 'no', 'variants']).where('feature_name', '=', feature).execute()

  it('50 reports of one feature: nothing written until the flush, then one row with the sums', async () => {
    const secret = await clientToken()
    const feature = await createFeature(t.app)
    await flush()
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => metrics(secret, { [feature]: { yes: 2, no: 1, variants: { red: 1, [`v${i % 3}`]: 1 } } }, 'summed')))
    expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(202))
    // Pending: one application, its instance and one count row, however many reports.
    expect(t.app.usage.pending).toBe(3)
    expect(await countsOf(feature)).toEqual([])
    expect((await stagesOf(feature)).map((s: { stage: string }) => s.stage)).toEqual(['initial'])
    await flush()
    expect(t.app.usage.pending).toBe(0)
    expect(await countsOf(feature)).toEqual([{ yes: '100', no: '50', variants: { red: 50, v0: 17, v1: 17, v2: 16 } }])
    // The first evaluation moved the lifecycle at the flush, with its event.
    expect((await stagesOf(feature)).map((s: { stage: string }) => s.stage)).toEqual(['initial', 'pre-live'])
  })

  it('the caps count what is pending as well as what is stored', async () => {
    const secret = await clientToken()
    // Applications: two stored, one pending; a fourth is refused before any flush.
    expect((await register(secret, 'cap-1', 'a')).statusCode).toBe(202)
    expect((await register(secret, 'cap-2', 'b')).statusCode).toBe(202)
    await flush()
    expect((await register(secret, 'cap-3', 'c')).statusCode).toBe(202)
    expect(expectProblem(await register(secret, 'cap-4', 'x'), 400, 'BadDataError').details[0].path).toBe('/body/appName')
    // Instances: three stored or pending; one more fits, the next does not.
    expect((await register(secret, 'cap-3', 'd')).statusCode).toBe(202)
    expect(expectProblem(await register(secret, 'cap-1', 'e'), 400, 'BadDataError').details[0].path).toBe('/body/instanceId')
    // Known ones refresh themselves.
    expect((await register(secret, 'cap-1', 'a')).statusCode).toBe(202)
    await flush()
    const stored = await t.database.db.selectFrom('usage_instances as i').innerJoin('usage_applications as a', 'a.id', 'i.application_id')
      .select(['a.app_name', 'i.instance_id']).where('a.app_name', 'like', 'cap-%').orderBy('i.instance_id').execute()
    expect(stored).toEqual([
      { app_name: 'cap-1', instance_id: 'a' },
      { app_name: 'cap-2', instance_id: 'b' },
      { app_name: 'cap-3', instance_id: 'c' },
      { app_name: 'cap-3', instance_id: 'd' },
    ])
  })

  it('two instances admitting new instances of one token at once: the flush stores none past the cap', async () => {
    const config = testConfig(t.databaseUrl, { CLIENT_MAX_APPLICATIONS: '3', CLIENT_MAX_INSTANCES: '4' })
    const database = await createDatabase(config)
    const other = await buildApp(config, { database })
    try {
      const secret = await clientToken()
      const on = (app: typeof other, instanceId: string) => app.inject({
        method: 'POST',
        url: '/api/client/register',
        headers: auth(secret),
        payload: { appName: 'split', instanceId, strategies: [], started: now(), interval: 60000 },
      })
      // Each instance has seen none stored: each admits three.
      for (const id of ['a-1', 'a-2', 'a-3']) expect((await on(t.app, id)).statusCode).toBe(202)
      for (const id of ['b-1', 'b-2', 'b-3']) expect((await on(other, id)).statusCode).toBe(202)
      await flush()
      await other.usage.flush()
      const stored = await t.database.db.selectFrom('usage_instances as i').innerJoin('usage_applications as a', 'a.id', 'i.application_id')
        .select('i.instance_id').where('a.app_name', '=', 'split').orderBy('i.instance_id').execute()
      expect(stored.map((i) => i.instance_id)).toEqual(['a-1', 'a-2', 'a-3', 'b-1'])
      // The other instance reads the token's usage again: a new instance is refused there too.
      expect(expectProblem(await on(other, 'b-4'), 400, 'BadDataError').details[0].path).toBe('/body/instanceId')
      expect((await on(other, 'b-1')).statusCode).toBe(202)
    } finally {
      await other.close()
      await database.db.destroy()
    }
  })

  it('USAGE_MAX_PENDING rows start a flush early', async () => {
    const small = await buildTestApp({ USAGE_MAX_PENDING: '1000' })
    try {
      const secret = await requests(small).clientToken()
      const feature = await createFeature(small.app)
      const toggles = Object.fromEntries([feature, ...Array.from({ length: 999 }, (_, i) => `unknown-${i}`)].map((f) => [f, { yes: 1, no: 0 }]))
      const res = await small.app.inject({ method: 'POST', url: '/api/client/metrics', headers: auth(secret), payload: { appName: 'early', instanceId: 'i', bucket: { start: now(), stop: now(), toggles } } })
      expect(res.statusCode).toBe(202)
      // The flush started with the report (1001 rows), not at the timer.
      expect(small.app.usage.pending).toBe(0)
      await small.app.usage.flush()
      expect(await small.database.db.selectFrom('usage_counts').select('yes').where('feature_name', '=', feature).execute()).toEqual([{ yes: '1' }])
    } finally {
      await small.close()
    }
  })

  it('nothing is lost when the app closes: what is pending is written', async () => {
    const other = await buildTestApp()
    const secret = await requests(other).clientToken()
    const feature = await createFeature(other.app)
    for (let i = 0; i < 5; i++) {
      const res = await other.app.inject({ method: 'POST', url: '/api/client/metrics', headers: auth(secret), payload: { appName: 'closing', instanceId: 'i', bucket: { start: now(), stop: now(), toggles: { [feature]: { yes: 1, no: 1 } } } } })
      expect(res.statusCode).toBe(202)
    }
    expect(other.app.usage.pending).toBe(3)
    let stored: unknown
    await other.close(async () => {
      stored = await other.database.db.selectFrom('usage_counts').select(['yes', 'no']).where('feature_name', '=', feature).execute()
    })
    expect(stored).toEqual([{ yes: '5', no: '5' }])
  })
})

describe('the default caps', () => {
  it('are 50 applications and 1000 instances per token, kept 30 days, written every 5 s', async () => {
    const defaults = await buildTestApp()
    try {
      expect(defaults.config).toMatchObject({ clientMaxApplications: 50, clientMaxInstances: 1000, usageRetentionDays: 30, usageFlushMs: 5000 })
    } finally {
      await defaults.close()
    }
  })
})
