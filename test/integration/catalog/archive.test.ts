/**
 * The archive in Unleash 8.2's shapes: archiving several features, what it would meet, deleting
 * archived features for good (in bulk, and one by name as Terraform's provider does), reviving
 * one by name. Successes with what is stored and their events; refusals change nothing.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })
const base = '/api/admin/projects/default/features'
const { send } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)
const archive = (features: string[]) => post('/api/admin/projects/default/archive', { features })
const stored = (name: string) => t.database.db.selectFrom('features').select(['name', 'archived_at']).where('name', '=', name).executeTakeFirst()

async function refusedUnchanged (request: () => ReturnType<typeof send>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem(await request(), status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

/** A parent and a child that depends on it. */
async function family () {
  const parent = await createFeature(t.app)
  const child = await createFeature(t.app)
  expect((await post(`${base}/${child}/dependencies`, { feature: parent })).statusCode).toBe(200)
  return { parent, child }
}

describe('archiving several features', () => {
  it('archives each (202, feature-archived), a parent with all its children too; an archived one is left alone', async () => {
    const { parent, child } = await family()
    const plain = await createFeature(t.app)
    expect((await archive([parent, child, plain])).statusCode).toBe(202)
    for (const name of [parent, child, plain]) {
      expect((await stored(name))?.archived_at).not.toBeNull()
      expect((await eventsOf(t.database.db, name)).filter((e) => e.type === 'feature-archived')).toHaveLength(1)
    }
    const before = await databaseFingerprint(t.database.db)
    expect((await archive([plain])).statusCode).toBe(202)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refuses a parent whose child stays (409 naming it), a feature not in the project (404): nothing changed', async () => {
    const { parent, child } = await family()
    const plain = await createFeature(t.app)
    expect((await refusedUnchanged(() => archive([plain, parent]), 409, 'InUseError')).message).toContain(child)
    expect((await refusedUnchanged(() => archive([plain, 'ghost']), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
    await post('/api/admin/projects', { id: 'archive-other', name: 'Other' })
    const elsewhere = await createFeature(t.app, 'archive-other')
    expect((await refusedUnchanged(() => archive([elsewhere]), 404, 'NotFoundError')).message).toBe(`Feature ${elsewhere} does not exist in project default`)
    const scoped = await createToken(t.app, { projects: ['archive-other'] })
    await refusedUnchanged(() => post('/api/admin/projects/default/archive', { features: [plain] }, scoped), 403, 'PermissionError')
  })

  it('validate: which would orphan children, whether any has dependencies; reads only', async () => {
    const { parent, child } = await family()
    const plain = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    const check = async (features: string[]) => json(await post('/api/admin/projects/default/archive/validate', { features }))
    expect(await check([parent])).toEqual({ parentsWithChildFeatures: [parent], hasDeletedDependencies: true })
    expect(await check([parent, child])).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: true })
    expect(await check([child])).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: true })
    expect(await check([plain, 'ghost'])).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: false })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expectProblem(await post('/api/admin/projects/ghost/archive/validate', { features: [] }), 404, 'NotFoundError')
  })
})

describe('deleting archived features for good', () => {
  it('deletes only archived ones, with everything that belongs to them; feature-deleted keeps the feature and its tags', async () => {
    const gone = await createFeature(t.app)
    const live = await createFeature(t.app)
    await post(`${base}/${gone}/environments/development/strategies`, { name: 'default' })
    await post(`/api/admin/features/${gone}/tags`, { type: 'simple', value: 'doomed' })
    await post(`${base}/${gone}/link`, { url: 'https://example.com/issue/1' })
    await archive([gone])
    expect((await post('/api/admin/projects/default/delete', { features: [gone, live] })).statusCode).toBe(200)
    expect(await stored(gone)).toBeUndefined()
    expect(await stored(live)).toBeDefined()
    for (const table of ['feature_environments', 'feature_strategies', 'feature_tags', 'feature_links', 'feature_lifecycles'] as const) {
      expect(await t.database.db.selectFrom(table).select('feature_name').where('feature_name', '=', gone).execute(), table).toEqual([])
    }
    const deleted = (await eventsOf(t.database.db, gone)).at(-1)!
    expect(deleted).toMatchObject({ type: 'feature-deleted', project: 'default', pre_data: { name: gone, project: 'default', archived: true, tags: [{ type: 'simple', value: 'doomed' }] } })
    expect(expectProblem(await send('GET', `${base}/${gone}`), 404, 'NotFoundError').message).toBe(`Feature ${gone} does not exist in project default`)
    // Its name is free again.
    expect((await post('/api/admin/features/validate', { name: gone })).statusCode).toBe(200)
  })

  it('deletes a parent with its archived child; refuses one whose child stays (409), a feature not in the project (404): nothing changed', async () => {
    const { parent, child } = await family()
    await archive([child, parent])
    expect((await refusedUnchanged(() => post('/api/admin/projects/default/delete', { features: [parent] }), 409, 'InUseError')).message).toContain(parent)
    await refusedUnchanged(() => post('/api/admin/projects/default/delete', { features: ['ghost'] }), 404, 'NotFoundError')
    expect((await post('/api/admin/projects/default/delete', { features: [parent, child] })).statusCode).toBe(200)
    expect(await stored(parent)).toBeUndefined()
    expect(await stored(child)).toBeUndefined()
  })
})

describe("Terraform's provider: archive, then DELETE /api/admin/archive/{featureName}", () => {
  it('deletes the archived feature (200, feature-deleted); a feature that is not archived, or not there, is left alone (200)', async () => {
    const name = await createFeature(t.app)
    // What the provider sends: the archive, then the delete by name.
    expect((await send('DELETE', `${base}/${name}`)).statusCode).toBe(202)
    const res = await send('DELETE', `/api/admin/archive/${name}`)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect(await stored(name)).toBeUndefined()
    expect((await eventsOf(t.database.db, name)).at(-1)?.type).toBe('feature-deleted')
    // Applying the plan again (the resource is gone) still succeeds, as Unleash answers.
    const live = await createFeature(t.app)
    const before = await databaseFingerprint(t.database.db)
    expect((await send('DELETE', `/api/admin/archive/${name}`)).statusCode).toBe(200)
    expect((await send('DELETE', `/api/admin/archive/${live}`)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('refuses a token of another project (403) and a parent whose child stays archived (409): nothing changed', async () => {
    await post('/api/admin/projects', { id: 'tf-other', name: 'Other' })
    const name = await createFeature(t.app, 'tf-other')
    await send('DELETE', `/api/admin/projects/tf-other/features/${name}`)
    const scoped = await createToken(t.app, { projects: ['default'] })
    expect((await refusedUnchanged(() => send('DELETE', `/api/admin/archive/${name}`, undefined, scoped), 403, 'PermissionError')).message).toMatch(/project tf-other/)
    const { parent, child } = await family()
    await archive([child, parent])
    await refusedUnchanged(() => send('DELETE', `/api/admin/archive/${parent}`), 409, 'InUseError')
  })
})

describe('reviving one feature by name', () => {
  it('revives it off in every environment (feature-revived, feature-environment-disabled), as Unleash; a live one is left alone', async () => {
    const name = await createFeature(t.app)
    await post(`${base}/${name}/environments/development/on`)
    await send('DELETE', `${base}/${name}`)
    expect((await post(`/api/admin/archive/revive/${name}`)).statusCode).toBe(200)
    const feature = json(await send('GET', `${base}/${name}`))
    expect(feature.lifecycle.stage).not.toBe('archived')
    expect(feature.environments.every((e: any) => !e.enabled)).toBe(true)
    expect((await eventsOf(t.database.db, name)).slice(-2).map((e) => e.type)).toEqual(['feature-revived', 'feature-environment-disabled'])
    const before = await databaseFingerprint(t.database.db)
    expect((await post(`/api/admin/archive/revive/${name}`)).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it('404 for a feature that is not there, 403 for one of a project outside the token: nothing changed', async () => {
    expect((await refusedUnchanged(() => post('/api/admin/archive/revive/ghost'), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist')
    await post('/api/admin/projects', { id: 'revive-other', name: 'Other' })
    const name = await createFeature(t.app, 'revive-other', uniqueName('elsewhere'))
    await send('DELETE', `/api/admin/projects/revive-other/features/${name}`)
    const scoped = await createToken(t.app, { projects: ['default'] })
    await refusedUnchanged(() => post(`/api/admin/archive/revive/${name}`, undefined, scoped), 403, 'PermissionError')
  })
})
