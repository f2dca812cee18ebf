/**
 * Feature links through Unleash's paths and bodies: added, changed and removed with their events,
 * listed with the feature in the order they were added, normalised as Unleash stores them; what
 * is refused changes nothing.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, createToken, expectProblem, json, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp()
const base = '/api/admin/projects/default/features'
const { send } = requests(t)
const linksOf = async (feature: string) => json(await send('GET', `${base}/${feature}`)).links

async function refusedUnchanged (request: () => ReturnType<typeof send>, status: number, name: string) {
  const before = await databaseFingerprint(t.database.db)
  const body = expectProblem(await request(), status, name)
  expect(await databaseFingerprint(t.database.db)).toEqual(before)
  return body
}

describe('feature links', () => {
  it('adds (204), lists in order with the feature, changes and removes them, each with its event', async () => {
    const feature = await createFeature(t.app)
    const added = await send('POST', `${base}/${feature}/link`, { url: 'github.com/org/repo/issues/7', title: 'The issue' })
    expect(added.statusCode).toBe(204)
    expect(added.body).toBe('')
    expect((await send('POST', `${base}/${feature}/link`, { url: 'https://www.Example.com/dash/?b=2&a=1' })).statusCode).toBe(204)
    const links = await linksOf(feature)
    expect(links).toEqual([
      { id: expect.stringMatching(/^[0-9A-Z]{26}$/), url: 'https://github.com/org/repo/issues/7', title: 'The issue', feature },
      { id: expect.any(String), url: 'https://example.com/dash?a=1&b=2', title: null, feature },
    ])
    expect((await send('PUT', `${base}/${feature}/link/${links[1].id}`, { url: 'https://example.com/other', title: 'Dashboard' })).statusCode).toBe(204)
    // The same again changes nothing.
    const before = await databaseFingerprint(t.database.db)
    expect((await send('PUT', `${base}/${feature}/link/${links[1].id}`, { url: 'example.com/other/', title: 'Dashboard' })).statusCode).toBe(204)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await send('DELETE', `${base}/${feature}/link/${links[0].id}`)).statusCode).toBe(204)
    expect(await linksOf(feature)).toEqual([{ id: links[1].id, url: 'https://example.com/other', title: 'Dashboard', feature }])
    const events = (await eventsOf(t.database.db, feature)).filter((e) => e.type.startsWith('feature-link'))
    expect(events.map((e) => [e.type, e.data, e.pre_data])).toEqual([
      ['feature-link-added', { url: 'https://github.com/org/repo/issues/7', title: 'The issue' }, null],
      ['feature-link-added', { url: 'https://example.com/dash?a=1&b=2', title: null }, null],
      ['feature-link-updated', { url: 'https://example.com/other', title: 'Dashboard' }, { url: 'https://example.com/dash?a=1&b=2', title: null }],
      ['feature-link-removed', null, { url: 'https://github.com/org/repo/issues/7', title: 'The issue' }],
    ])
  })

  it('refuses an address that is not http(s), an eleventh link, a link of another feature, a missing feature or project, an archived feature: nothing changed', async () => {
    const feature = await createFeature(t.app)
    const other = await createFeature(t.app)
    const link = (url: string) => () => send('POST', `${base}/${feature}/link`, { url })
    expect((await refusedUnchanged(link('javascript:alert(1)'), 400, 'BadDataError')).message).toBe('/body/url must be an http or https address, not javascript')
    expect((await refusedUnchanged(link('not a url'), 400, 'BadDataError')).message).toBe('/body/url is not a URL: not a url')
    await refusedUnchanged(() => send('POST', `${base}/${feature}/link`, { url: 'https://example.com', extra: true }), 400, 'BadDataError')
    await refusedUnchanged(() => send('POST', `${base}/${feature}/link`, { title: 'no address' }), 400, 'BadDataError')
    for (let i = 0; i < 10; i++) expect((await send('POST', `${base}/${feature}/link`, { url: `https://example.com/${i}` })).statusCode).toBe(204)
    expect((await refusedUnchanged(link('https://example.com/11'), 400, 'BadDataError')).message).toBe(`/body would be link 11 of feature ${feature}; at most 10 are allowed`)
    const [first] = await linksOf(feature)
    expect((await refusedUnchanged(() => send('DELETE', `${base}/${other}/link/${first.id}`), 404, 'NotFoundError')).message).toBe(`Link ${first.id} does not exist for feature ${other} in project default`)
    await refusedUnchanged(() => send('PUT', `${base}/${other}/link/${first.id}`, { url: 'https://example.com' }), 404, 'NotFoundError')
    expect((await refusedUnchanged(() => send('POST', `${base}/ghost/link`, { url: 'https://example.com' }), 404, 'NotFoundError')).message).toBe('Feature ghost does not exist in project default')
    expect((await refusedUnchanged(() => send('POST', `/api/admin/projects/ghost/features/${feature}/link`, { url: 'https://example.com' }), 404, 'NotFoundError')).message).toBe('Project ghost does not exist')
    await send('DELETE', `${base}/${other}`)
    await refusedUnchanged(() => send('POST', `${base}/${other}/link`, { url: 'https://example.com' }), 409, 'FeatureArchivedError')
    await send('POST', '/api/admin/projects', { id: 'links-other', name: 'Other' })
    const scoped = await createToken(t.app, { projects: ['links-other'] })
    await refusedUnchanged(() => send('POST', `${base}/${feature}/link`, { url: 'https://example.com' }, scoped), 403, 'PermissionError')
  })
})
