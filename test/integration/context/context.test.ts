/**
 * Context fields with legal values through Unleash's admin API paths, and the constraint
 * validation route, which checks values against them.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()

const { send } = requests(t)

const eventsSince = async (id: number | string) =>
  t.database.db.selectFrom('events').select(['type', 'data', 'pre_data', 'feature_name', 'project']).where('id', '>', id).orderBy('id').execute()
const lastEventId = async () => (await t.database.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0

/** A refused request changes nothing anywhere. */
async function expectRefusal (request: () => ReturnType<typeof send>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem(await request(), status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

describe('context fields', () => {
  it('lists the built-in fields as Unleash does, by name', async () => {
    const res = await send('GET', '/api/admin/context')
    expect(res.statusCode).toBe(200)
    const builtIn = json(res).filter((f: any) => ['appName', 'currentTime', 'environment', 'remoteAddress', 'sessionId', 'userId'].includes(f.name))
    expect(builtIn.map((f: any) => [f.name, f.sortOrder, f.stickiness])).toEqual([
      ['appName', 2, false],
      ['currentTime', 3, false],
      ['environment', 0, false],
      ['remoteAddress', 5, false],
      ['sessionId', 4, true],
      ['userId', 1, true],
    ])
    expect(builtIn[0]).toEqual({
      name: 'appName',
      description: 'Allows you to constrain on application name',
      stickiness: false,
      sortOrder: 2,
      legalValues: [],
      createdAt: expect.any(String),
      usedInFeatures: 0,
      usedInProjects: 0,
    })
  })

  it('create (201, Location), read, validate, replace, legal values, delete (200), each write with its event', async () => {
    const name = uniqueName('tier')
    const start = await lastEventId()
    const created = await send('POST', '/api/admin/context', { name, description: 'plan', stickiness: true, legalValues: [{ value: 'gold', description: 'pays' }, { value: 'free' }] })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.headers.location).toBe(`context/${name}`)
    const field = json(created)
    expect(field).toEqual({ name, description: 'plan', stickiness: true, sortOrder: 0, legalValues: [{ value: 'gold', description: 'pays' }, { value: 'free' }], createdAt: expect.any(String) })
    expect(json(await send('GET', `/api/admin/context/${name}`))).toEqual(field)
    expectProblem(await send('POST', '/api/admin/context/validate', { name }), 409, 'NameExistsError')
    const free = await send('POST', '/api/admin/context/validate', { name: uniqueName('free') })
    expect(free.statusCode).toBe(200)
    expect(free.body).toBe('')

    // What a read returns can be sent back; the same values change nothing.
    const { usedInFeatures, ...read } = { ...field, usedInFeatures: 0 }
    expect((await send('PUT', `/api/admin/context/${name}`, { ...read, usedInFeatures })).statusCode).toBe(200)
    expect(await eventsSince(start)).toHaveLength(1)

    expect((await send('PUT', `/api/admin/context/${name}`, { legalValues: [{ value: 'silver' }], sortOrder: 7 })).statusCode).toBe(200)
    expect(json(await send('GET', `/api/admin/context/${name}`))).toMatchObject({ description: 'plan', stickiness: false, sortOrder: 7, legalValues: [{ value: 'silver' }] })
    expect((await send('POST', `/api/admin/context/${name}/legal-values`, { value: 'gold', description: 'pays' })).statusCode).toBe(200)
    expect((await send('POST', `/api/admin/context/${name}/legal-values`, { value: 'silver', description: 'some' })).statusCode).toBe(200)
    expect(json(await send('GET', `/api/admin/context/${name}`)).legalValues).toEqual([{ value: 'silver', description: 'some' }, { value: 'gold', description: 'pays' }])
    expect((await send('DELETE', `/api/admin/context/${name}/legal-values/silver`)).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/context/${name}/legal-values/silver`)).statusCode).toBe(200)
    expect(json(await send('GET', `/api/admin/context/${name}`)).legalValues).toEqual([{ value: 'gold', description: 'pays' }])
    const deleted = await send('DELETE', `/api/admin/context/${name}`)
    expect(deleted.statusCode).toBe(200)
    expectProblem(await send('GET', `/api/admin/context/${name}`), 404, 'NotFoundError')

    const events = await eventsSince(start)
    expect(events.map((e) => e.type)).toEqual([
      'context-field-created',
      'context-field-updated',
      'context-field-updated',
      'context-field-updated',
      'context-field-updated',
      'context-field-deleted',
    ])
    expect(JSON.parse(events[1]!.data!)).toEqual({ name, description: 'plan', stickiness: false, sortOrder: 7, legalValues: [{ value: 'silver' }] })
    expect(JSON.parse(events[1]!.pre_data!)).toMatchObject({ stickiness: true, sortOrder: 0 })
  })

  it('refusals name the rule and store nothing', async () => {
    const name = uniqueName('ctx')
    await send('POST', '/api/admin/context', { name })
    const twice = await expectRefusal(() => send('POST', '/api/admin/context', { name: uniqueName('ctx'), legalValues: [{ value: 'a' }, { value: 'a' }] }), 400, 'BadDataError')
    expect(twice.details[0].path).toBe('/body/legalValues/1/value')
    await expectRefusal(() => send('POST', '/api/admin/context', { name }), 409, 'NameExistsError')
    await expectRefusal(() => send('POST', '/api/admin/context', { name: 'a b' }), 400, 'BadDataError')
    await expectRefusal(() => send('POST', '/api/admin/context', { name: uniqueName('ctx'), description: 'x'.repeat(251) }), 400, 'BadDataError')
    await expectRefusal(() => send('POST', '/api/admin/context', { name: uniqueName('ctx'), legalValues: [{ value: 'x'.repeat(101) }] }), 400, 'BadDataError')
    await expectRefusal(() => send('PUT', `/api/admin/context/${name}`, { name: 'other' }), 400, 'BadDataError')
    await expectRefusal(() => send('PUT', '/api/admin/context/ghost', {}), 404, 'NotFoundError')
    await expectRefusal(() => send('DELETE', '/api/admin/context/ghost'), 404, 'NotFoundError')
    const scoped = await createToken(t.app, { projects: ['default'] })
    await expectRefusal(() => send('POST', '/api/admin/context', { name: uniqueName('ctx') }, scoped), 403, 'PermissionError')
    await expectRefusal(() => send('DELETE', `/api/admin/context/${name}`, undefined, scoped), 403, 'PermissionError')
    expect((await send('GET', '/api/admin/context', undefined, scoped)).statusCode).toBe(200)
  })

  it('a field that constraints read cannot be deleted (409), and says where it is used', async () => {
    const name = uniqueName('region')
    await send('POST', '/api/admin/context', { name })
    const feature = await createFeature(t.app)
    const strategies = `/api/admin/projects/default/features/${feature}/environments/development/strategies`
    const strategy = json(await send('POST', strategies, { name: 'default', constraints: [{ contextName: name, operator: 'IN', values: ['eu'] }] }))
    expect(json(await send('GET', `/api/admin/context/${name}/strategies`)).strategies).toEqual([
      { id: strategy.id, projectId: 'default', featureName: feature, strategyName: 'default', environment: 'development' },
    ])
    expect(json(await send('GET', '/api/admin/context')).find((f: any) => f.name === name)).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 })
    await expectRefusal(() => send('DELETE', `/api/admin/context/${name}`), 409, 'InUseError')
    await send('DELETE', `${strategies}/${strategy.id}`)
    expect((await send('DELETE', `/api/admin/context/${name}`)).statusCode).toBe(200)
  })
})

describe('POST /api/admin/constraints/validate', () => {
  it('204 for a valid constraint; 400 naming the rule, including legal values of its field', async () => {
    const ok = await send('POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'IN', values: ['a'] })
    expect(ok.statusCode).toBe(204)
    expect(ok.body).toBe('')
    const semver = expectProblem(await send('POST', '/api/admin/constraints/validate', { contextName: 'version', operator: 'SEMVER_EQ', value: 'v1' }), 400, 'BadDataError')
    expect(semver.details[0]).toEqual({ path: '/body/value', message: expect.stringContaining('semver') })
    const empty = expectProblem(await send('POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'IN', values: [] }), 400, 'BadDataError')
    expect(empty.details[0].path).toBe('/body/values')
    expectProblem(await send('POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'LIKE', values: ['a'] }), 400, 'BadDataError')
    const name = uniqueName('plan')
    await send('POST', '/api/admin/context', { name, legalValues: [{ value: 'gold' }, { value: 'silver' }] })
    expect((await send('POST', '/api/admin/constraints/validate', { contextName: name, operator: 'IN', values: ['gold'] })).statusCode).toBe(204)
    const illegal = expectProblem(await send('POST', '/api/admin/constraints/validate', { contextName: name, operator: 'IN', values: ['gold', 'bronze'] }), 400, 'BadDataError')
    expect(illegal.details).toEqual([{ path: '/body/values/1', message: `/body/values/1 is bronze, which is not a legal value of the context field ${name}` }])
  })
})
