/**
 * Tag types, tags and the tags of features through Unleash's admin API paths: each write with
 * its event, scoped to the token, refusals that store nothing.
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

describe('tag types, tags and the tags of features', () => {
  it('tag types: create (201, Location), validate, read, update, delete, each with its event', async () => {
    const name = uniqueName('team')
    const start = await lastEventId()
    const created = await send('POST', '/api/admin/tag-types', { name, description: 'owning team', color: '#AA00FF' })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.headers.location).toBe(`tag-types/${name}`)
    expect(json(created)).toEqual({ name, description: 'owning team', icon: null, color: '#AA00FF' })
    expect(json(await send('POST', '/api/admin/tag-types/validate', { name: uniqueName('free') }))).toMatchObject({ valid: true })
    expectProblem(await send('POST', '/api/admin/tag-types/validate', { name }), 409, 'NameExistsError')
    expect(json(await send('GET', `/api/admin/tag-types/${name}`))).toEqual({ version: 1, tagType: { name, description: 'owning team', icon: null, color: '#AA00FF' } })
    expect(json(await send('GET', '/api/admin/tag-types')).tagTypes.map((tt: any) => tt.name)).toEqual(expect.arrayContaining(['simple', name]))
    expect((await send('PUT', `/api/admin/tag-types/${name}`, { description: 'team', icon: 'people' })).statusCode).toBe(200)
    expect((await send('PUT', `/api/admin/tag-types/${name}`, { description: 'team' })).statusCode).toBe(200)
    expect(json(await send('GET', `/api/admin/tag-types/${name}`)).tagType).toEqual({ name, description: 'team', icon: 'people', color: '#AA00FF' })
    expect((await send('DELETE', `/api/admin/tag-types/${name}`)).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/tag-types/${name}`)).statusCode).toBe(200)
    expect((await eventsSince(start)).map((e) => e.type)).toEqual(['tag-type-created', 'tag-type-updated', 'tag-type-deleted'])
    await expectRefusal(() => send('POST', '/api/admin/tag-types', { name: 'x' }), 400, 'BadDataError')
    await expectRefusal(() => send('POST', '/api/admin/tag-types', { name: uniqueName('c'), color: 'red' }), 400, 'BadDataError')
    await expectRefusal(() => send('POST', '/api/admin/tag-types', { name: 'simple' }), 409, 'NameExistsError')
    await expectRefusal(() => send('PUT', '/api/admin/tag-types/ghost', { description: 'x' }), 404, 'NotFoundError')
  })

  it('tags: create, list, read, delete; a tag of a type that does not exist is a 400', async () => {
    const value = uniqueName('v')
    const created = await send('POST', '/api/admin/tags', { value: `  ${value} ` })
    expect(created.statusCode, created.body).toBe(201)
    expect(json(created)).toEqual({ version: 1, tag: { value, type: 'simple' } })
    expect(json(await send('GET', `/api/admin/tags/simple/${value}`))).toEqual({ version: 1, tag: { value, type: 'simple' } })
    expect(json(await send('GET', '/api/admin/tags/simple')).tags).toContainEqual({ value, type: 'simple' })
    expect(json(await send('GET', '/api/admin/tags')).tags).toContainEqual({ value, type: 'simple' })
    await expectRefusal(() => send('POST', '/api/admin/tags', { value }), 409, 'NameExistsError')
    const typeless = await expectRefusal(() => send('POST', '/api/admin/tags', { value, type: 'nosuchtype' }), 400, 'BadDataError')
    expect(typeless.message).toBe("Tag type 'nosuchtype' does not exist")
    await expectRefusal(() => send('POST', '/api/admin/tags', { value: ' a ' }), 400, 'BadDataError')
    expect((await send('DELETE', `/api/admin/tags/simple/${value}`)).statusCode).toBe(200)
    expectProblem(await send('GET', `/api/admin/tags/simple/${value}`), 404, 'NotFoundError')
  })

  it('the tags of a feature: add (creating the tag), replace, remove; scoped to the token; deleting a tag type untags', async () => {
    const feature = await createFeature(t.app)
    const url = `/api/admin/features/${feature}/tags`
    const type = uniqueName('kind')
    await send('POST', '/api/admin/tag-types', { name: type })
    const start = await lastEventId()
    const added = await send('POST', url, { type, value: 'backend' })
    expect(added.statusCode, added.body).toBe(201)
    expect(json(added)).toEqual({ type, value: 'backend' })
    expect((await send('POST', url, { type, value: 'backend' })).statusCode).toBe(201)
    expect(json(await send('GET', url))).toEqual({ version: 1, tags: [{ value: 'backend', type }] })
    const changed = await send('PUT', url, { addedTags: [{ type, value: 'api' }, { value: 'simple-one' }], removedTags: [{ type, value: 'backend' }] })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(json(changed)).toEqual({ version: 1, tags: [{ value: 'api', type }, { value: 'simple-one', type: 'simple' }] })
    expect((await send('DELETE', `${url}/simple/simple-one`)).statusCode).toBe(200)
    expect((await eventsSince(start)).map((e) => [e.type, e.feature_name])).toEqual([
      ['tag-created', null],
      ['feature-tagged', feature],
      ['tag-created', null],
      ['feature-tagged', feature],
      ['tag-created', null],
      ['feature-tagged', feature],
      ['feature-untagged', feature],
      ['feature-untagged', feature],
    ])

    // A token of another project learns nothing about the feature.
    await send('POST', '/api/admin/projects', { id: 'other', name: 'Other' })
    const other = await createToken(t.app, { projects: ['other'] })
    await expectRefusal(() => send('GET', url, undefined, other), 404, 'NotFoundError')
    await expectRefusal(() => send('POST', url, { value: 'sneaky' }, other), 404, 'NotFoundError')
    await expectRefusal(() => send('POST', '/api/admin/features/ghost/tags', { value: 'sneaky' }), 404, 'NotFoundError')
    await expectRefusal(() => send('POST', url, { type: 'nosuchtype', value: 'x1' }), 400, 'BadDataError')
    const scoped = await createToken(t.app, { projects: ['default'] })
    expect((await send('POST', url, { type, value: 'mine' }, scoped)).statusCode).toBe(201)

    expect((await send('DELETE', `/api/admin/tag-types/${type}`)).statusCode).toBe(200)
    expect(json(await send('GET', url)).tags).toEqual([])
  })
})

describe('tagging several features of a project', () => {
  it('adds then removes tags on each (tag-created once, feature-tagged and feature-untagged each); the same again changes nothing', async () => {
    const [a, b] = [await createFeature(t.app), await createFeature(t.app)]
    const [fresh, old] = [uniqueName('bulk'), uniqueName('old')]
    await send('POST', `/api/admin/features/${a}/tags`, { type: 'simple', value: old })
    const start = await lastEventId()
    const body = { features: [b, a], tags: { addedTags: [{ type: 'simple', value: fresh }], removedTags: [{ type: 'simple', value: old }] } }
    const res = await send('PUT', '/api/admin/projects/default/tags', body)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    for (const name of [a, b]) expect(json(await send('GET', `/api/admin/features/${name}/tags`)).tags).toEqual([{ type: 'simple', value: fresh }])
    expect((await eventsSince(start)).map((e) => [e.type, e.feature_name])).toEqual([
      ['tag-created', null],
      ['feature-tagged', [a, b].sort()[0]],
      ...([a, b].sort()[0] === a ? [['feature-untagged', a], ['feature-tagged', b]] : [['feature-tagged', a], ['feature-untagged', a]]),
    ])
    const before = await databaseFingerprint(t.database.db)
    expect((await send('PUT', '/api/admin/projects/default/tags', body)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('all or none: a feature not in the project (404), a tag type that does not exist (400), a short value (400) change nothing', async () => {
    const a = await createFeature(t.app)
    const tags = (addedTags: object[]) => ({ addedTags, removedTags: [] })
    expect((await expectRefusal(() => send('PUT', '/api/admin/projects/default/tags', { features: [a, 'ghost'], tags: tags([{ type: 'simple', value: 'ok-value' }]) }), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
    await expectRefusal(() => send('PUT', '/api/admin/projects/default/tags', { features: [a], tags: tags([{ type: uniqueName('nope'), value: 'ok-value' }]) }), 400, 'BadDataError')
    expect((await expectRefusal(() => send('PUT', '/api/admin/projects/default/tags', { features: [a], tags: tags([{ type: 'simple', value: ' x ' }]) }), 400, 'BadDataError')).message).toMatch(/^\/body\/tags\/addedTags\/0\/value/)
    await expectRefusal(() => send('PUT', '/api/admin/projects/ghost/tags', { features: [], tags: tags([]) }), 404, 'NotFoundError')
  })
})
