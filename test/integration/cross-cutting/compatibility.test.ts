/**
 * What existing Unleash clients send and expect, found while bringing Unleash's data in: empty
 * JSON bodies on routes that take none, archived users of a segment, a segment read and sent
 * back, the names in refusals, OFREP's media type on every refusal, and the environments list's
 * refusal in the document.
 */
import { describe, expect, it } from 'vitest'
import { auth, createFeature, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const { admin, apiToken, send } = requests(t)
/** What Unleash's admin UI and many HTTP clients send on routes without a body. */
const emptyJson = (method: 'POST' | 'DELETE', url: string) =>
  admin.send(method, url, '', { 'content-type': 'application/json' })

describe('an empty JSON body on a route that takes none is accepted, as Unleash does', () => {
  it('on, off, strategy DELETE, archive, revive-free routes, uncomplete, token DELETE', async () => {
    const feature = await createFeature(t.app)
    expect((await emptyJson('POST', `${base}/${feature}/environments/development/on`)).statusCode).toBe(200)
    const [strategy] = json(await send('GET', `${base}/${feature}/environments/development/strategies`))
    expect((await emptyJson('POST', `${base}/${feature}/environments/development/off`)).statusCode).toBe(200)
    expect((await emptyJson('DELETE', `${base}/${feature}/environments/development/strategies/${strategy.id}`)).statusCode).toBe(200)
    expect((await emptyJson('POST', `${base}/${feature}/lifecycle/uncomplete`)).statusCode).toBe(200)
    expect((await emptyJson('DELETE', `${base}/${feature}`)).statusCode).toBe(202)
    const tokenName = uniqueName('tok')
    await send('POST', '/api/admin/api-tokens', { tokenName })
    expect((await emptyJson('DELETE', `/api/admin/api-tokens/${tokenName}`)).statusCode).toBe(200)
    const types = (await t.database.db.selectFrom('events').select('type').where('feature_name', '=', feature).orderBy('id').execute()).map((e) => e.type)
    expect(types).toEqual(expect.arrayContaining(['feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-remove', 'feature-archived']))
  })

  it('a route that takes a body still refuses an empty one (400 naming it)', async () => {
    const feature = await createFeature(t.app)
    const res = await t.app.inject({ method: 'POST', url: `${base}/${feature}/lifecycle/complete`, headers: { ...auth(), 'content-type': 'application/json' }, payload: '' })
    expect(expectProblem(res, 400, 'BadDataError').message).toMatch(/empty/)
  })
})

describe('segments', () => {
  it('a segment used only by strategies of archived features can be deleted; they lose it (Unleash: "should delete segments used by strategies in archived feature flags")', async () => {
    const { id } = json(await send('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] }))
    const live = await createFeature(t.app)
    const archived = await createFeature(t.app)
    for (const feature of [live, archived]) await send('POST', `${base}/${feature}/environments/development/strategies`, { name: 'default', segments: [id] })
    await send('DELETE', `${base}/${archived}`)
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await send('DELETE', `/api/admin/segments/${id}`), 409, 'InUseError').message).toContain(live)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    await send('DELETE', `${base}/${live}`)
    expect((await send('DELETE', `/api/admin/segments/${id}`)).statusCode).toBe(204)
    await send('POST', '/api/admin/projects/default/revive', { features: [archived] })
    const [strategy] = json(await send('GET', `${base}/${archived}/environments/development/strategies`))
    expect(strategy.segments).toEqual([])
  })

  it('PUT accepts the id a read returns; another id is a 400 naming it', async () => {
    const segment = json(await send('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] }))
    const { id, name, description, project, constraints } = segment
    expect((await send('PUT', `/api/admin/segments/${id}`, { id, name, description, project, constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] })).statusCode).toBe(204)
    const before = await databaseFingerprint(t.database.db)
    const refused = expectProblem(await send('PUT', `/api/admin/segments/${id}`, { id: id + 1, name, constraints }), 400, 'BadDataError')
    expect(refused.details[0].path).toBe('/body/id')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('refusals name what is wrong', () => {
  it('a missing parent names the parent feature', async () => {
    const child = await createFeature(t.app)
    const refused = expectProblem(await send('POST', `${base}/${child}/dependencies`, { feature: 'no-such-parent' }), 400, 'BadDataError')
    expect(refused.message).toContain('no-such-parent')
  })

  it('the semver refusal says semver', async () => {
    const feature = await createFeature(t.app)
    const refused = expectProblem(await send('POST', `${base}/${feature}/environments/development/strategies`, { name: 'default', constraints: [{ contextName: 'v', operator: 'SEMVER_GT', value: '1.0' }] }), 400, 'BadDataError')
    expect(refused.message).toMatch(/semver/)
  })
})

describe('OFREP refusals are application/json, as the document says', () => {
  const evaluate = (url: string, secret: string | undefined, payload: string = '{"context":{}}') =>
    t.app.inject({ method: 'POST', url, headers: { ...(secret === undefined ? {} : auth(secret)), 'content-type': 'application/json' }, payload })

  it('a key of 101 to 1000 characters is 404 FLAG_NOT_FOUND; a malformed escape is 400 PARSE_ERROR; 401, 403 and 415 too', async () => {
    const frontend = await apiToken('frontend')
    for (const length of [101, 200, 1000]) {
      const key = 'k'.repeat(length)
      const res = await evaluate(`/ofrep/v1/evaluate/flags/${key}`, frontend)
      expect(res.statusCode, String(length)).toBe(404)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(json(res)).toMatchObject({ key, errorCode: 'FLAG_NOT_FOUND' })
    }
    const escape = await evaluate('/ofrep/v1/evaluate/flags/%E0%A4%A', frontend)
    expect(escape.statusCode).toBe(400)
    expect(escape.headers['content-type']).toMatch(/^application\/json/)
    expect(json(escape)).toMatchObject({ errorCode: 'PARSE_ERROR' })
    const nul = await evaluate('/ofrep/v1/evaluate/flags/a%00b', frontend)
    expect(nul.statusCode).toBe(404)
    for (const [secret, status] of [[undefined, 401], ['wrong', 401], [await apiToken('client'), 403]] as const) {
      for (const url of ['/ofrep/v1/evaluate/flags/x', '/ofrep/v1/evaluate/flags']) {
        const res = await evaluate(url, secret)
        expect(res.statusCode, `${url} ${secret}`).toBe(status)
        expect(res.headers['content-type']).toMatch(/^application\/json/)
      }
    }
    const form = await t.app.inject({ method: 'POST', url: '/ofrep/v1/evaluate/flags/x', headers: { ...auth(frontend), 'content-type': 'text/plain' }, payload: 'x' })
    expect(form.statusCode).toBe(415)
    expect(form.headers['content-type']).toMatch(/^application\/json/)
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    for (const status of ['401', '403', '413', '415']) {
      expect(Object.keys(doc.paths['/ofrep/v1/evaluate/flags/{key}'].post.responses[status].content)).toEqual(['application/json'])
    }
  })
})

describe('GET /api/admin/environments', () => {
  it('answers 403 to client and frontend tokens, and the document lists it', async () => {
    for (const type of ['client', 'frontend'] as const) expectProblem(await send('GET', '/api/admin/environments', undefined, await apiToken(type)), 403, 'PermissionError')
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    expect(Object.keys(doc.paths['/api/admin/environments'].get.responses)).toContain('403')
  })
})
