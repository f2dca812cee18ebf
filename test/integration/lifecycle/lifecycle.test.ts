import { beforeEach, describe, expect, it } from 'vitest'
import {
  auth,
  useTestApp,
  createFeature,
  createToken,
  expectProblem,
  json,
  uniqueName,
} from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { eventsOf, featureState } from '../../helpers/state.js'

const t = useTestApp()

let feature: string
beforeEach(async () => {
  feature = await createFeature(t.app)
})

const base = (f = feature, project = 'default') => `/api/admin/projects/${project}/features/${f}/lifecycle`
const { admin } = requests(t)
const complete = (body: unknown, headers: Record<string, string> = {}, target = `${base()}/complete`) => admin.post(target, body, headers)
const uncomplete = (target = `${base()}/uncomplete`) => admin.post(target)
const stages = async () => json(await admin.get(base()))
const completedEvents = async () =>
  (await eventsOf(t.database.db, feature)).filter((e) => e.type.startsWith('feature-') && e.type.endsWith('completed'))

describe('POST lifecycle/complete', () => {
  it('a new feature is in stage initial', async () => {
    expect(await stages()).toEqual([{ stage: 'initial', enteredStageAt: expect.any(String) }])
  })

  it('completes with status and statusValue: 200 empty, stored, event with kept', async () => {
    const res = await complete({ status: 'kept', statusValue: 'variant-b' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    const list = await stages()
    expect(list).toEqual([
      { stage: 'initial', enteredStageAt: expect.any(String) },
      { stage: 'completed', enteredStageAt: expect.any(String), status: 'kept', statusValue: 'variant-b', lastEvaluated: [] },
    ])
    expect(new Date(list[1].enteredStageAt) >= new Date(list[0].enteredStageAt)).toBe(true)
    const [event] = await completedEvents()
    expect(event).toMatchObject({
      type: 'feature-completed',
      created_by: expect.stringMatching(/^init-admin-/),
      project: 'default',
      feature_name: feature,
      environment: null,
      data: { status: 'kept', statusValue: 'variant-b', kept: true },
      pre_data: null,
    })
    const details = json(await t.app.inject({ method: 'GET', url: `/api/admin/projects/default/features/${feature}`, headers: auth() }))
    expect(details.lifecycle.stage).toBe('completed')
  })

  it('discarded without statusValue: kept is false and statusValue absent', async () => {
    expect((await complete({ status: 'discarded' })).statusCode).toBe(200)
    expect((await stages())[1]).toEqual({ stage: 'completed', enteredStageAt: expect.any(String), status: 'discarded', lastEvaluated: [] })
    expect((await completedEvents())[0]?.data).toEqual({ status: 'discarded', statusValue: null, kept: false })
  })

  it('the same values again change nothing and record no event', async () => {
    await complete({ status: 'kept', statusValue: 'v' })
    const before = await featureState(t.database.db, feature)
    const res = await complete({ status: 'kept', statusValue: 'v' })
    expect(res.statusCode).toBe(200)
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('different values replace the old ones, with preData, keeping when the stage was entered', async () => {
    await complete({ status: 'kept', statusValue: 'v1' })
    const [, firstStage] = await stages()
    await complete({ status: 'discarded', statusValue: 'v2' })
    const [, stage] = await stages()
    expect(stage).toEqual({ ...firstStage, status: 'discarded', statusValue: 'v2' })
    const events = await completedEvents()
    expect(events).toHaveLength(2)
    expect(events[1]).toMatchObject({
      data: { status: 'discarded', statusValue: 'v2', kept: false },
      pre_data: { status: 'kept', statusValue: 'v1', kept: true },
    })
    // dropping statusValue is a change too
    await complete({ status: 'discarded' })
    expect((await stages())[1].statusValue).toBeUndefined()
    expect(await completedEvents()).toHaveLength(3)
  })

  it.each([
    ['status missing', {}, '/body/status'],
    ['status not kept|discarded', { status: 'done' }, '/body/status'],
    ['status in another case', { status: 'Kept' }, '/body/status'],
    ['statusValue a number', { status: 'kept', statusValue: 5 }, '/body/statusValue'],
    ['statusValue null', { status: 'kept', statusValue: null }, '/body/statusValue'],
    ['statusValue over 1000 chars', { status: 'kept', statusValue: 'x'.repeat(1001) }, '/body/statusValue'],
    ['unknown property', { status: 'kept', reason: 'x' }, '/body/reason'],
    ['body an array', [{ status: 'kept' }], '/body'],
  ])('400 for %s, nothing completed', async (_label, body, path) => {
    const before = await featureState(t.database.db, feature)
    const res = await complete(body)
    expect(expectProblem(res, 400, 'BadDataError').details[0].path).toBe(path)
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('accepts statusValue of exactly 1000 characters', async () => {
    expect((await complete({ status: 'kept', statusValue: 'x'.repeat(1000) })).statusCode).toBe(200)
  })

  it('404 for an unknown project, an unknown feature, and a feature of another project', async () => {
    const project = uniqueName('p')
    await t.app.inject({ method: 'POST', url: '/api/admin/projects', headers: auth(), payload: { id: project, name: 'P' } })
    const before = await featureState(t.database.db, feature)
    const cases = [
      [`${base(feature, 'nope')}/complete`, 'Project nope does not exist'],
      [`${base('nope')}/complete`, 'Feature nope does not exist in project default'],
      [`${base(feature, project)}/complete`, `Feature ${feature} does not exist in project ${project}`],
    ]
    for (const [target, message] of cases) {
      expect(expectProblem(await complete({ status: 'kept' }, {}, target), 404, 'NotFoundError').message).toBe(message)
    }
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('401 without a token, 403 for a token of another project, nothing completed', async () => {
    const before = await featureState(t.database.db, feature)
    const anonymous = await t.app.inject({ method: 'POST', url: `${base()}/complete`, payload: { status: 'kept' } })
    expectProblem(anonymous, 401, 'AuthenticationRequired')
    const other = await createToken(t.app, { projects: ['other'] })
    expectProblem(await complete({ status: 'kept' }, auth(other)), 403, 'PermissionError')
    expect(await featureState(t.database.db, feature)).toEqual(before)
    const scoped = await createToken(t.app, { projects: ['default'], environments: ['development'] })
    expect((await complete({ status: 'kept' }, auth(scoped))).statusCode).toBe(200)
  })
})

describe('POST lifecycle/uncomplete', () => {
  it('removes the completed stage and records feature-uncompleted; the history stays in events', async () => {
    await complete({ status: 'kept', statusValue: 'v' })
    const res = await uncomplete()
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(await stages()).toEqual([{ stage: 'initial', enteredStageAt: expect.any(String) }])
    const events = await completedEvents()
    expect(events.map((e) => e.type)).toEqual(['feature-completed', 'feature-uncompleted'])
    expect(events[1]?.pre_data).toEqual({ status: 'kept', statusValue: 'v', kept: true })
  })

  it('on a feature that is not completed: 200, nothing changes, no event', async () => {
    const before = await featureState(t.database.db, feature)
    expect((await uncomplete()).statusCode).toBe(200)
    expect(await featureState(t.database.db, feature)).toEqual(before)
  })

  it('uncomplete then complete again enters the stage anew with the new values', async () => {
    await complete({ status: 'kept', statusValue: 'v' })
    await uncomplete()
    await complete({ status: 'kept', statusValue: 'v' })
    expect((await stages())[1]).toMatchObject({ status: 'kept', statusValue: 'v' })
    const events = await completedEvents()
    expect(events.map((e) => e.type)).toEqual(['feature-completed', 'feature-uncompleted', 'feature-completed'])
    expect(events[2]?.pre_data).toBeNull()
  })

  it('404 for an unknown feature', async () => {
    expectProblem(await uncomplete(`${base('nope')}/uncomplete`), 404, 'NotFoundError')
    expectProblem(await t.app.inject({ method: 'GET', url: base('nope'), headers: auth() }), 404, 'NotFoundError')
  })
})

describe('concurrent completions of one feature', () => {
  it('end in one consistent stored state whose last event matches it', async () => {
    const values = Array.from({ length: 20 }, (_, i) => ({
      status: i % 2 === 0 ? 'kept' : 'discarded',
      statusValue: `v${i}`,
    }))
    const responses = await Promise.all(values.map((v) => complete(v)))
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200))
    const completed = await t.database.db
      .selectFrom('feature_lifecycles')
      .selectAll()
      .where('feature_name', '=', feature)
      .where('stage', '=', 'completed')
      .execute()
    expect(completed).toHaveLength(1)
    const events = await completedEvents()
    expect(events).toHaveLength(20)
    const last = events.at(-1)
    expect(last?.data).toEqual({
      status: completed[0]?.status,
      statusValue: completed[0]?.status_value,
      kept: completed[0]?.status === 'kept',
    })
    // each event's preData is the previous event's data: a single serial history
    for (let i = 1; i < events.length; i++) {
      expect(events[i]?.pre_data).toEqual(events[i - 1]?.data)
    }
  })
})

describe('the count of features in each stage', () => {
  it("counts every feature the token may see by its current stage (archived ones as archived), in Unleash's shape", async () => {
    const project = uniqueName('count')
    await admin.post('/api/admin/projects', { id: project, name: project })
    const [a, b, c] = [await createFeature(t.app, project), await createFeature(t.app, project), await createFeature(t.app, project)]
    await admin.post(`${base(b, project)}/complete`, { status: 'kept' })
    await admin.delete(`/api/admin/projects/${project}/features/${c}`)
    expect(a).toBeDefined()
    const scoped = await createToken(t.app, { projects: [project] })
    const res = await admin.get('/api/admin/lifecycle/count', { authorization: scoped })
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({ initial: 1, preLive: 0, live: 0, completed: 1, archived: 1 })
    const all = json(await admin.get('/api/admin/lifecycle/count'))
    expect(all.initial).toBeGreaterThanOrEqual(1)
    expect(all.completed + all.archived).toBeGreaterThanOrEqual(2)
  })
})
