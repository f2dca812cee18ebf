/**
 * Unleash's features-batch export, validate and import: the shapes, the messages, the round
 * trip between two servers, all or nothing, and an import recording what the single writes do.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { writeChange } from '../../../src/events/events.service.js'
import { toJsonText } from '../../../src/events/events.schemas.js'
import { committedVersion } from '../../../src/events/events.store.js'
import { auth, buildTestApp, createToken, expectProblem, json, type TestApp, uniqueName, useTestApp } from '../../helpers/app.js'
import { withClient } from '../../helpers/database.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' })

const send = (app: TestApp, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, secret?: string) =>
  requests(app).send(method, url, payload, secret)
const ok = async (res: ReturnType<typeof send>) => {
  const done = await res
  if (done.statusCode >= 300) throw new Error(`${done.statusCode} ${done.body}`)
  return done
}

/** A project with rich state built through the single routes; returns its name and the features. */
async function richProject (app: TestApp) {
  const project = uniqueName('src')
  await ok(send(app, 'POST', '/api/admin/projects', { id: project, name: project }))
  await ok(send(app, 'POST', `/api/admin/projects/${project}/environments`, { environment: 'development' }))
  const plan = uniqueName('plan')
  await ok(send(app, 'POST', '/api/admin/context', { name: plan, stickiness: true, sortOrder: 9, legalValues: [{ value: 'gold', description: 'pays' }, { value: 'free' }] }))
  const segment = json(await ok(send(app, 'POST', '/api/admin/segments', { name: uniqueName('beta'), constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0' }] })))
  const tagType = uniqueName('team')
  await ok(send(app, 'POST', '/api/admin/tag-types', { name: tagType, description: 'owner' }))
  const [parent, child, plain] = [uniqueName('parent'), uniqueName('child'), uniqueName('plain')]
  const base = `/api/admin/projects/${project}/features`
  await ok(send(app, 'POST', base, { name: parent, type: 'experiment', description: 'the parent', impressionData: true }))
  await ok(send(app, 'POST', base, { name: child, type: 'kill-switch' }))
  await ok(send(app, 'POST', base, { name: plain }))
  const strategies = (feature: string) => `${base}/${feature}/environments/development/strategies`
  await ok(send(app, 'POST', strategies(parent), {
    name: 'flexibleRollout',
    parameters: { rollout: '40', stickiness: plan, groupId: 'g' },
    constraints: [{ contextName: plan, operator: 'IN', values: ['gold'] }, { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00Z' }],
    segments: [segment.id],
    variants: [{ name: 'a', weight: 0, payload: { type: 'json', value: '{"x":1}' } }, { name: 'b', weight: 0 }],
  }))
  await ok(send(app, 'POST', strategies(parent), { name: 'default', title: 'second', constraints: [{ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['admin'], caseInsensitive: true }] }))
  await ok(send(app, 'POST', strategies(child), { name: 'userWithId', parameters: { userIds: 'u1,u2' } }))
  await ok(send(app, 'PUT', `${base}/${parent}/environments/development/variants`, [{ name: 'blue', weight: 0, overrides: [{ contextName: 'userId', values: ['u9'] }] }, { name: 'red', weight: 300, weightType: 'fix' }]))
  for (const feature of [parent, child]) await ok(send(app, 'POST', `${base}/${feature}/environments/development/on`))
  await ok(send(app, 'POST', `${base}/${child}/dependencies`, { feature: parent, variants: ['blue'] }))
  await ok(send(app, 'POST', `/api/admin/features/${parent}/tags`, { type: tagType, value: 'web' }))
  await ok(send(app, 'POST', `/api/admin/features/${child}/tags`, { value: 'simple-tag' }))
  await ok(send(app, 'POST', `${base}/${parent}/link`, { url: 'github.com/org/repo/issues/1', title: 'Issue' }))
  await ok(send(app, 'POST', `${base}/${parent}/link`, { url: 'https://example.com/dashboard' }))
  await ok(send(app, 'PATCH', `${base}/${child}`, [{ op: 'replace', path: '/stale', value: true }]))
  return { project, plan, segment, tagType, parent, child, plain }
}

const exportOf = async (app: TestApp, project: string, more: object = {}) =>
  json(await ok(send(app, 'POST', '/api/admin/features-batch/export', { environment: 'development', project, ...more })))

/** An export without what differs between two servers (ids, the project). */
function comparable (data: any) {
  const segmentName = new Map(data.segments.map((s: any) => [s.id, s.name]))
  return {
    features: data.features.map(({ project, ...f }: any) => f),
    featureStrategies: data.featureStrategies.map(({ id, segments, ...s }: any) => ({ ...s, segments: segments.map((i: number) => segmentName.get(i)) })),
    featureEnvironments: data.featureEnvironments,
    contextFields: data.contextFields,
    featureTags: data.featureTags,
    segments: data.segments.map(({ id, ...s }: any) => s),
    tagTypes: data.tagTypes,
    dependencies: data.dependencies,
    links: data.links.map((l: any) => ({ ...l, links: l.links.map(({ id, ...link }: any) => link) })),
  }
}

describe('POST /api/admin/features-batch/export', () => {
  it("has Unleash 8.2's shape, with strategies' sortOrder and segments' constraints", async () => {
    const s = await richProject(t)
    const data = await exportOf(t, s.project, { segmentConstraints: true })
    expect(Object.keys(data).sort()).toEqual(['contextFields', 'dependencies', 'featureEnvironments', 'featureStrategies', 'featureTags', 'features', 'links', 'segments', 'tagTypes'])
    expect(data.features.find((f: any) => f.name === s.child).stale).toBe(true)
    expect(data.links).toEqual([{
      feature: s.parent,
      links: [
        { id: expect.any(String), url: 'https://github.com/org/repo/issues/1', title: 'Issue' },
        { id: expect.any(String), url: 'https://example.com/dashboard', title: null },
      ],
    }])
    expect(data.features.map((f: any) => f.name)).toEqual([s.child, s.parent, s.plain].sort())
    expect(data.features.find((f: any) => f.name === s.parent)).toEqual({ name: s.parent, description: 'the parent', type: 'experiment', project: s.project, stale: false, impressionData: true, archived: false })
    const [first, second] = data.featureStrategies.filter((x: any) => x.featureName === s.parent)
    expect(first).toEqual({
      name: 'flexibleRollout',
      id: expect.any(String),
      featureName: s.parent,
      title: null,
      parameters: { rollout: '40', stickiness: s.plan, groupId: 'g' },
      constraints: [{ contextName: s.plan, operator: 'IN', values: ['gold'] }, { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00Z', values: [] }],
      variants: [
        { name: 'a', weight: 500, weightType: 'variable', stickiness: s.plan, payload: { type: 'json', value: '{"x":1}' } },
        { name: 'b', weight: 500, weightType: 'variable', stickiness: s.plan },
      ],
      sortOrder: expect.any(Number),
      disabled: false,
      segments: [s.segment.id],
    })
    expect(second.sortOrder).toBeGreaterThan(first.sortOrder)
    expect(data.featureEnvironments.find((e: any) => e.featureName === s.parent)).toEqual({
      enabled: true,
      featureName: s.parent,
      environment: 'development',
      name: s.parent,
      variants: [
        { name: 'blue', weight: 700, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['u9'] }] },
        { name: 'red', weight: 300, weightType: 'fix', stickiness: 'default' },
      ],
    })
    expect(data.contextFields.map((c: any) => c.name)).toEqual(['currentTime', s.plan, 'userId'].sort())
    expect(data.contextFields.find((c: any) => c.name === s.plan)).toEqual({ name: s.plan, description: null, stickiness: true, sortOrder: 9, legalValues: [{ value: 'gold', description: 'pays' }, { value: 'free' }] })
    expect(data.segments).toEqual([{ id: s.segment.id, name: s.segment.name, description: null, project: null, constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0', values: [] }] }])
    expect(data.featureTags).toEqual(expect.arrayContaining([{ featureName: s.parent, tagType: s.tagType, tagValue: 'web' }, { featureName: s.child, tagType: 'simple', tagValue: 'simple-tag' }]))
    expect(data.tagTypes.map((tt: any) => tt.name).sort()).toEqual(['simple', s.tagType].sort())
    expect(data.dependencies).toEqual([{ feature: s.child, dependencies: [{ feature: s.parent, enabled: true, variants: ['blue'] }] }])
    // By name, by tag; as a file.
    const byName = json(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [s.plain] }))
    expect(byName.features.map((f: any) => f.name)).toEqual([s.plain])
    const byTag = json(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', tag: 'web' }))
    expect(byTag.features.map((f: any) => f.name)).toContain(s.parent)
    // By default segments are {id, name}, as Unleash exports them and its import requires.
    const unleashShaped = json(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', project: s.project }))
    expect(unleashShaped.segments).toEqual([{ id: s.segment.id, name: s.segment.name }])
    const file = await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [s.plain], downloadFile: true })
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="export-\d{4}-\d{2}-\d{2}\.json"$/)
    expectProblem(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'nowhere' }), 404, 'NotFoundError')
    const other = await createToken(t.app, { projects: ['default'] })
    expectProblem(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', project: s.project }, other), 403, 'PermissionError')
    expect(json(await send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [s.plain] }, other)).features).toEqual([])
  })
})

describe('an export reads one snapshot', () => {
  it('a write committed between two of its statements cannot tear it', async () => {
    const name = uniqueName('torn')
    const base = `/api/admin/projects/default/features/${name}/environments/development`
    await ok(send(t, 'POST', '/api/admin/projects/default/features', { name }))
    await ok(send(t, 'POST', `${base}/strategies`, { name: 'default' }))
    await ok(send(t, 'POST', `${base}/on`))
    const consistent = await exportOf(t, 'default').then((data) => ({
      environments: data.featureEnvironments.filter((e: any) => e.featureName === name),
      strategies: data.featureStrategies.filter((x: any) => x.featureName === name).length,
    }))
    expect(consistent).toEqual({ environments: [expect.objectContaining({ enabled: true })], strategies: 1 })

    // A writer holds the strategies table while the export starts: the export reads the
    // feature and its state, then waits for the strategies; the writer then removes them and
    // switches the feature off, and commits. Read in one snapshot, the export still shows the
    // feature as it was (on, with its strategy); torn, it would show it on with none.
    const exported = await withClient(t.databaseUrl, async (writer) => {
      await writer.query('BEGIN')
      await writer.query('LOCK TABLE feature_strategies IN ACCESS EXCLUSIVE MODE')
      const pending = send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [name] })
      for (let waited = 0; ; waited += 10) {
        const { rows } = await writer.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = \'feature_strategies\'::regclass')
        if (rows[0].n > 0) break
        if (waited > 10_000) throw new Error('the export never waited for the strategies')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await writer.query('DELETE FROM feature_strategies WHERE feature_name = $1', [name])
      await writer.query("UPDATE feature_environments SET enabled = false WHERE feature_name = $1 AND environment_name = 'development'", [name])
      await writer.query('COMMIT')
      return json(await ok(pending))
    })
    expect(exported.featureEnvironments).toEqual([expect.objectContaining({ featureName: name, enabled: true })])
    expect(exported.featureStrategies).toEqual([expect.objectContaining({ featureName: name, name: 'default' })])
  })
})

describe('POST /api/admin/features-batch/import', () => {
  it('an import that names no feature (an export of nothing) is valid and writes nothing', async () => {
    const nothing = json(await ok(send(t, 'POST', '/api/admin/features-batch/export', { environment: 'development', features: [uniqueName('none')] })))
    expect(nothing).toEqual({ features: [], featureStrategies: [], featureEnvironments: [], contextFields: [], featureTags: [], segments: [], tagTypes: [], dependencies: [], links: [] })
    for (const data of [nothing, { features: [], featureStrategies: [] }]) {
      const body = { project: 'default', environment: 'development', data }
      expect(json(await ok(send(t, 'POST', '/api/admin/features-batch/validate', body)))).toEqual({ errors: [], warnings: [], permissions: [] })
      const before = await databaseFingerprint(t.database.db)
      const imported = await send(t, 'POST', '/api/admin/features-batch/import', body)
      expect(imported.statusCode, imported.body).toBe(200)
      expect(await databaseFingerprint(t.database.db)).toEqual(before)
    }
  })

  it('round trip: an export imports into another server as it was; the same data again changes nothing', async () => {
    const s = await richProject(t)
    // With the segments' constraints, so that the target creates them.
    const data = await exportOf(t, s.project, { segmentConstraints: true })
    const target = await buildTestApp({ CLIENT_STATE_CACHE_MS: '0' })
    try {
      const imported = await send(target, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data })
      expect(imported.statusCode, imported.body).toBe(200)
      expect(imported.body).toBe('')
      const again = await exportOf(target, 'default', { segmentConstraints: true })
      expect(comparable(again)).toEqual(comparable(data))
      // What SDKs read is the same.
      const clientOf = async (app: TestApp) => {
        const secret = await requests(app).clientToken()
        const features = json(await app.app.inject({ url: '/api/client/features', headers: auth(secret) })).features
        return features.filter((f: any) => [s.parent, s.child, s.plain].includes(f.name)).map(({ project, strategies, ...f }: any) => ({ ...f, strategies: strategies.map(({ id, segments, ...x }: any) => ({ ...x, segments: segments?.length })) }))
      }
      expect(await clientOf(target)).toEqual(await clientOf(t))

      const before = await databaseFingerprint(target.database.db)
      expect((await send(target, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data })).statusCode).toBe(200)
      expect(await databaseFingerprint(target.database.db)).toEqual(before)
    } finally {
      await target.close()
    }
  })

  it('records what the single writes record, moves the version once, and writes their webhook outbox rows', async () => {
    await t.app.webhooks.stop()
    const hook = json(await ok(send(t, 'POST', '/api/admin/addons', { provider: 'webhook', enabled: true, events: ['feature-created', 'feature-strategy-add', 'feature-environment-variants-updated', 'feature-environment-enabled', 'features-imported'], parameters: { url: 'http://127.0.0.1:9/hook' } })))
    const project = uniqueName('imp')
    await ok(send(t, 'POST', '/api/admin/projects', { id: project, name: project }))
    await ok(send(t, 'POST', `/api/admin/projects/${project}/environments`, { environment: 'development' }))
    const name = uniqueName('one')
    const lastId = Number((await t.database.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id)
    const version = BigInt(await committedVersion(t.database.db))
    const data = {
      features: [{ name, type: 'release', project: 'elsewhere' }],
      featureStrategies: [{ name: 'default', featureName: name, constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'], inverted: false, caseInsensitive: false, value: '' }] }],
      featureEnvironments: [{ featureName: name, environment: 'production', enabled: true, variants: [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] }] }],
      contextFields: [],
      featureTags: [],
      segments: [],
      tagTypes: [],
    }
    expect((await send(t, 'POST', '/api/admin/features-batch/import', { project, environment: 'development', data })).statusCode).toBe(200)
    const events = await t.database.db.selectFrom('events').select(['id', 'type', 'feature_name', 'environment']).where('id', '>', lastId).orderBy('id').execute()
    expect(events.map((e) => e.type)).toEqual(['feature-created', 'feature-lifecycle-stage-entered', 'feature-environment-variants-updated', 'feature-strategy-add', 'feature-environment-enabled', 'features-imported'].filter((type) => type !== 'feature-lifecycle-stage-entered' || events.some((e) => e.type === type)))
    expect(BigInt(await committedVersion(t.database.db))).toBe(version + 1n)
    const outbox = await t.database.db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', hook.id).execute()
    expect(outbox.map((r) => Number(r.event_id)).sort()).toEqual(events.filter((e) => e.type !== 'feature-lifecycle-stage-entered').map((e) => Number(e.id)))
    const [strategy] = json(await send(t, 'GET', `/api/admin/projects/${project}/features/${name}/environments/development/strategies`))
    expect(strategy.constraints).toEqual([{ contextName: 'userId', operator: 'IN', values: ['u1'], inverted: false, caseInsensitive: false }])
  })

  it('all or nothing: a bad element late in a big file leaves every table as it was, and the 400 names it', async () => {
    const project = uniqueName('big')
    await ok(send(t, 'POST', '/api/admin/projects', { id: project, name: project }))
    await ok(send(t, 'POST', `/api/admin/projects/${project}/environments`, { environment: 'development' }))
    const names = Array.from({ length: 300 }, (_, i) => `${project}-f${i}`)
    const data = {
      features: names.map((name) => ({ name })),
      featureStrategies: names.map((name) => ({ name: 'flexibleRollout', featureName: name, parameters: { rollout: '50' }, constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.0.0' }] })),
      featureEnvironments: names.map((name) => ({ featureName: name, enabled: true, variants: [] })),
      contextFields: [{ name: uniqueName('ctx'), legalValues: [{ value: 'a' }] }],
      tagTypes: [{ name: uniqueName('tt'), description: 'x' }],
      featureTags: [],
      segments: [],
    }
    data.featureTags = [{ featureName: names[0], tagType: data.tagTypes[0]!.name, tagValue: 'first' }] as never
    data.featureStrategies[290]!.constraints[0]!.value = 'v1'
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await send(t, 'POST', '/api/admin/features-batch/import', { project, environment: 'development', data }), 400, 'BadDataError')
    expect(refused.details[0].path).toBe('/body/data/featureStrategies/290/constraints/0/value')
    expect(refused.message).toMatch(/semver/)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    data.featureStrategies[290]!.constraints[0]!.value = '1.0.1'
    expect((await send(t, 'POST', '/api/admin/features-batch/import', { project, environment: 'development', data })).statusCode).toBe(200)
    expect(json(await send(t, 'GET', `/api/admin/projects/${project}/features`)).features).toHaveLength(300)
    // Two imports of 300 features, one after another: long on a loaded machine.
  }, 180_000)

  it('refusals: environment or project missing (404), a token of another project (403), a dangling segment id, a stranger, an unknown operator (400); nothing stored', async () => {
    const name = uniqueName('r')
    const data = { features: [{ name }], featureStrategies: [] as object[], featureEnvironments: [] as object[] }
    const [otherProject, otherEnvironment, scoped] = [await createToken(t.app, { projects: ['other'] }), await createToken(t.app, { environments: ['production'] }), await createToken(t.app, { projects: ['default'] })]
    const before = await databaseFingerprint(t.database.db)
    const importing = (body: object, secret?: string) => send(t, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data, ...body }, secret)
    expect(expectProblem(await importing({ environment: 'nowhere' }), 404, 'NotFoundError').message).toContain('nowhere')
    expect(expectProblem(await importing({ project: 'nowhere' }), 404, 'NotFoundError').message).toContain('nowhere')
    expectProblem(await importing({}, otherProject), 403, 'PermissionError')
    expectProblem(await importing({}, otherEnvironment), 403, 'PermissionError')
    const dangling = expectProblem(await importing({ data: { ...data, featureStrategies: [{ name: 'default', featureName: name, segments: [7] }], segments: [] } }), 400, 'BadDataError')
    expect(dangling.details[0].path).toBe('/body/data/featureStrategies/0/segments/0')
    expect(expectProblem(await importing({ data: { ...data, featureStrategies: [{ name: 'default', featureName: 'ghost' }] } }), 400, 'BadDataError').message).toContain('featureStrategies/0 (ghost)')
    const operator = expectProblem(await importing({ data: { ...data, featureStrategies: [{ name: 'default', featureName: name, constraints: [{ contextName: 'a', operator: 'LIKE', values: ['x'] }] }] } }), 400, 'BadDataError')
    expect(operator.details[0].path).toBe('/body/data/featureStrategies/0/constraints/0/operator')
    const unknownStrategy = expectProblem(await importing({ data: { ...data, featureStrategies: [{ name: 'nosuchstrategy', featureName: name }] } }), 400, 'BadDataError')
    expect(unknownStrategy.details).toEqual([{ message: 'nosuchstrategy is not supported.' }])
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // A token of the project imports what needs no */* token.
    expect((await importing({}, scoped)).statusCode).toBe(200)
  })
})

describe('who may import', () => {
  it("a person's personal access token imports as an Editor (events name the person); a Viewer's is refused with 403, storing nothing", async () => {
    const base = await listen(t)
    const patOf = async (role: 'Editor' | 'Viewer') => {
      const person = await signedIn(t, base, role)
      const created = await person.browser.json('POST', '/api/admin/user/tokens', { description: 'import', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
      return { ...person, secret: ((await created.json()) as { secret: string }).secret }
    }
    const editor = await patOf('Editor')
    const viewer = await patOf('Viewer')
    const name = uniqueName('by-pat')
    const body = { project: 'default', environment: 'development', data: { features: [{ name }], featureStrategies: [{ name: 'default', featureName: name }], featureEnvironments: [{ featureName: name, enabled: true }] } }
    // A token's use is recorded (seen_at): that is no change of what the import writes.
    const stored = async () => {
      const { personal_access_tokens: _pats, users: _users, ...rest } = await databaseFingerprint(t.database.db)
      return rest
    }
    const before = await stored()
    expectProblem(await send(t, 'POST', '/api/admin/features-batch/import', body, viewer.secret), 403, 'PermissionError')
    expect(await stored()).toEqual(before)
    expect((await send(t, 'POST', '/api/admin/features-batch/import', body, editor.secret)).statusCode).toBe(200)
    const events = await t.database.db.selectFrom('events').selectAll().where('feature_name', '=', name).orderBy('id').execute()
    expect(events.map((e) => e.created_by)).toEqual(events.map(() => editor.login))
  })
})

describe('a composed change larger than one statement', () => {
  it('records every one of 12,000 events, moves the version once, and writes an outbox row for each', async () => {
    const hook = json(await ok(send(t, 'POST', '/api/admin/addons', { provider: 'webhook', enabled: true, events: ['tag-created'], parameters: { url: 'http://127.0.0.1:9/hook' } })))
    const version = BigInt(await committedVersion(t.database.db))
    const before = Number((await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
    await writeChange(t.database.db, async ({ record }) => {
      for (let i = 0; i < 12_000; i++) record({ type: 'tag-created', createdBy: { name: 'bulk' }, data: toJsonText({ value: `t${i}`, type: 'simple' }) })
    })
    const after = Number((await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
    expect(after - before).toBe(12_000)
    expect(BigInt(await committedVersion(t.database.db))).toBe(version + 1n)
    const outbox = await t.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('webhook_id', '=', hook.id).executeTakeFirstOrThrow()
    expect(Number(outbox.n)).toBe(12_000)
  })
})

describe('the example file (flags/example.json, which docker-compose.yml can seed the stack with)', () => {
  it('validates without errors and imports', async () => {
    const data = JSON.parse(readFileSync(new URL('../../../flags/example.json', import.meta.url), 'utf8'))
    const validation = json(await send(t, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data }))
    expect(validation.errors).toEqual([])
    expect((await send(t, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data })).statusCode).toBe(200)
    const darkMode = json(await send(t, 'GET', '/api/admin/projects/default/features/dark-mode'))
    expect(darkMode.environments.find((e: any) => e.name === 'development').strategies[0].segments).toHaveLength(1)
  })
})

describe('POST /api/admin/features-batch/validate', () => {
  it("lists errors, warnings and permissions with Unleash's messages, and stores nothing", async () => {
    const elsewhere = uniqueName('else')
    await ok(send(t, 'POST', '/api/admin/projects', { id: elsewhere, name: elsewhere }))
    const theirs = uniqueName('theirs')
    await ok(send(t, 'POST', `/api/admin/projects/${elsewhere}/features`, { name: theirs }))
    const existing = uniqueName('mine')
    await ok(send(t, 'POST', '/api/admin/projects/default/features', { name: existing }))
    const archived = uniqueName('old')
    await ok(send(t, 'POST', '/api/admin/projects/default/features', { name: archived }))
    await ok(send(t, 'DELETE', `/api/admin/projects/default/features/${archived}`))
    const custom = uniqueName('custom')
    await ok(send(t, 'POST', '/api/admin/strategies', { name: custom, parameters: [] }))
    const field = uniqueName('tier')
    await ok(send(t, 'POST', '/api/admin/context', { name: field, legalValues: [{ value: 'a' }] }))
    const fresh = uniqueName('new')
    const data = {
      features: [{ name: theirs }, { name: existing }, { name: archived }, { name: fresh }, { name: fresh }],
      featureStrategies: [{ name: 'nosuch', featureName: fresh }, { name: custom, featureName: existing }],
      contextFields: [{ name: field, legalValues: [{ value: 'a' }, { value: 'b' }] }],
      segments: [{ id: 1, name: uniqueName('unknown-segment') }],
      dependencies: [{ feature: fresh, dependencies: [{ feature: 'no-such-parent' }] }],
      links: [{ feature: fresh, links: [{ url: 'https://example.com' }] }],
    }
    const scoped = await createToken(t.app, { projects: ['default'] })
    const before = await databaseFingerprint(t.database.db)
    const res = await send(t, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data })
    expect(res.statusCode, res.body).toBe(200)
    const body = json(res)
    expect(body.errors).toEqual([
      { message: 'We detected the following custom strategy that needs to be created first:', affectedItems: ['nosuch'] },
      { message: 'We detected the following context fields that do not have matching legal values with the imported ones:', affectedItems: [field] },
      { message: 'You cannot import a features that already exist in other projects. You already have the following features defined outside of project default:', affectedItems: [`${theirs} (in project ${elsewhere})`] },
      { message: 'We detected the following features are duplicate in your import data:', affectedItems: [fresh] },
      { message: 'We detected the following segments that need to be created first:', affectedItems: [data.segments[0]!.name] },
      { message: 'We detected the following dependencies that need to be created first:', affectedItems: ['no-such-parent'] },
    ])
    expect(body.warnings).toEqual([
      { message: 'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:', affectedItems: [custom] },
      { message: 'The following features will not be imported as they are currently archived. To import them, please unarchive them first:', affectedItems: [archived] },
      { message: 'The following features already exist in this project and will be overwritten:', affectedItems: [existing] },
    ])
    expect(body.permissions).toEqual([])
    const asScoped = json(await send(t, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data: { features: [{ name: fresh }], featureStrategies: [], contextFields: [{ name: uniqueName('newfield') }] } }, scoped))
    expect(asScoped.permissions).toEqual([{ message: 'We detected you are missing the following permissions:', affectedItems: ['CREATE_CONTEXT_FIELD'] }])
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('links in an import', () => {
  const importInto = (data: object, secret?: string) => send(t, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data }, secret)
  const linksOf = async (feature: string) => json(await send(t, 'GET', `/api/admin/projects/default/features/${feature}`)).links.map(({ url, title }: any) => ({ url, title }))

  it("become the data's, in its order (normalised, feature-link-added each); a feature not listed loses its links; data without links leaves them", async () => {
    const [listed, unlisted] = [uniqueName('listed'), uniqueName('unlisted')]
    await ok(send(t, 'POST', '/api/admin/projects/default/features', { name: unlisted }))
    await ok(send(t, 'POST', `/api/admin/projects/default/features/${unlisted}/link`, { url: 'https://example.com/old' }))
    const data = {
      features: [{ name: listed }, { name: unlisted }],
      featureStrategies: [],
      links: [{ feature: listed, links: [{ url: 'https://www.example.com/b/', title: 'B' }, { url: 'example.com/a', title: null }] }],
    }
    expect((await importInto(data)).statusCode).toBe(200)
    expect(await linksOf(listed)).toEqual([{ url: 'https://example.com/b', title: 'B' }, { url: 'https://example.com/a', title: null }])
    expect(await linksOf(unlisted)).toEqual([])
    const before = await databaseFingerprint(t.database.db)
    expect((await importInto(data)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    await ok(send(t, 'POST', `/api/admin/projects/default/features/${unlisted}/link`, { url: 'https://example.com/kept' }))
    expect((await importInto({ features: [{ name: unlisted }], featureStrategies: [] })).statusCode).toBe(200)
    expect(await linksOf(unlisted)).toEqual([{ url: 'https://example.com/kept', title: null }])
  })

  it('refuses what the link route refuses (not http or https, an eleventh link) and a feature listed twice, naming the element; validate lists them; nothing stored', async () => {
    const name = uniqueName('links')
    const cases: [object[], string][] = [
      [[{ feature: name, links: [{ url: 'javascript:alert(1)' }] }], '/body/data/links/0/links/0/url must be an http or https address, not javascript'],
      [[{ feature: name, links: Array.from({ length: 11 }, (_, i) => ({ url: `https://example.com/${i}` })) }], `/body/data/links/0/links/10 would be link 11 of feature ${name}; at most 10 are allowed`],
      [[{ feature: name, links: [] }, { feature: name, links: [] }], `/body/data/links/1 lists the links of ${name} a second time (/body/data/links/0 lists them first)`],
    ]
    for (const [links, message] of cases) {
      const data = { features: [{ name }], featureStrategies: [], links }
      const before = await databaseFingerprint(t.database.db)
      expect(expectProblem(await importInto(data), 400, 'BadDataError').message).toBe(message)
      expect(await databaseFingerprint(t.database.db)).toEqual(before)
      const validation = json(await send(t, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data }))
      expect(validation.errors).toContainEqual({ message, affectedItems: [name] })
    }
  })
})

describe("strategies of Unleash's export (no sortOrder)", () => {
  it('keep the order the file lists them in, whatever their ids, interleaved with other features; each gets an integer sortOrder', async () => {
    const [a, b] = [uniqueName('order-a'), uniqueName('order-b')]
    const strategy = (featureName: string, id: string, title: string) => ({ name: 'default', id, featureName, title, parameters: {}, constraints: [], variants: [], disabled: false, segments: [] })
    const data = {
      features: [{ name: a }, { name: b }],
      featureStrategies: [strategy(a, '01ZZZZZZZZZZZZZZZZZZZZZZZZ', 'first'), strategy(b, '01AAAAAAAAAAAAAAAAAAAAAAAA', 'b-first'), strategy(a, '01AAAAAAAAAAAAAAAAAAAAAAAA', 'second'), strategy(a, '01MMMMMMMMMMMMMMMMMMMMMMMM', 'third')],
      featureEnvironments: [{ featureName: a, environment: 'development', enabled: true, variants: [] }],
    }
    expect((await send(t, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data })).statusCode).toBe(200)
    const stored = json(await send(t, 'GET', `/api/admin/projects/default/features/${a}/environments/development/strategies`))
    expect(stored.map((s: any) => s.title)).toEqual(['first', 'second', 'third'])
    const exported = await exportOf(t, 'default')
    const listed = exported.featureStrategies.filter((s: any) => s.featureName === a)
    expect(listed.map((s: any) => s.title)).toEqual(['first', 'second', 'third'])
    for (const s of listed) expect(Number.isInteger(s.sortOrder)).toBe(true)
    expect(listed.map((s: any) => s.sortOrder)).toEqual([...listed.map((s: any) => s.sortOrder)].sort((x, y) => x - y))
    // The SDK evaluates them in that order too.
    const secret = await requests(t).clientToken()
    const served = json(await t.app.inject({ url: `/api/client/features?namePrefix=${a}`, headers: auth(secret) })).features[0]
    expect(served.strategies).toHaveLength(3)
  })
})
