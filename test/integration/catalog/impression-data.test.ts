/**
 * A feature's impressionData through Unleash's admin API paths and bodies, and how the client
 * API serves it.
 */
import { describe, expect, it } from 'vitest'
import { expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { eventsOf } from '../../helpers/state.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const { as, clientToken, send } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)

const poll = (secret: string, feature: string, spec?: string) =>
  as(secret).get(`/api/client/features?namePrefix=${feature}`, spec === undefined ? {} : { 'unleash-client-spec': spec })

describe('impressionData', () => {
  it('is set on create and by PUT (feature-metadata-updated), a rename is refused, and SDKs get it', async () => {
    const name = uniqueName('impress')
    const created = await post(base, { name, impressionData: true })
    expect(json(created).impressionData).toBe(true)
    const updated = await send('PUT', `${base}/${name}`, { impressionData: false, description: 'now quiet' })
    expect(updated.statusCode).toBe(200)
    expect(json(updated)).toMatchObject({ name, impressionData: false, description: 'now quiet', type: 'release' })
    expect(expectProblem(await send('PUT', `${base}/${name}`, { name: 'renamed' }), 400, 'BadDataError').details[0].path).toBe('/body/name')
    const [event] = (await eventsOf(t.database.db, name)).filter((e) => e.type === 'feature-metadata-updated')
    expect(event).toMatchObject({ data: { impressionData: false, description: 'now quiet' }, pre_data: { impressionData: true, description: null } })
    await send('PUT', `${base}/${name}`, { impressionData: true })
    expect(json(await poll(await clientToken(), name)).features[0].impressionData).toBe(true)
  })
})
