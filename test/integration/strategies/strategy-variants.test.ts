/**
 * Strategy variants through Unleash's admin API paths and bodies, and how the client API serves
 * them.
 */
import { describe, expect, it } from 'vitest'
import { createFeature, expectProblem, json, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0' })

const base = '/api/admin/projects/default/features'
const strategiesUrl = (feature: string) => `${base}/${feature}/environments/development/strategies`
const { as, clientToken, send } = requests(t)
const post = (url: string, payload?: unknown, secret?: string) => send('POST', url, payload, secret)

const poll = (secret: string, feature: string, spec?: string) =>
  as(secret).get(`/api/client/features?namePrefix=${feature}`, spec === undefined ? {} : { 'unleash-client-spec': spec })

describe('strategy variants', () => {
  it('follow the environment variants\' rules, take the strategy\'s stickiness, are reached by PATCH and served as stored', async () => {
    const feature = await createFeature(t.app)
    const res = await post(strategiesUrl(feature), {
      name: 'flexibleRollout',
      parameters: { stickiness: 'sessionId' },
      variants: [{ name: 'blue', weight: 0, payload: { type: 'json', value: '{"a":1}' } }, { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' }],
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(json(res).variants).toEqual([
      { name: 'blue', weight: 800, weightType: 'variable', stickiness: 'sessionId', payload: { type: 'json', value: '{"a":1}' } },
      { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' },
    ])
    const url = `${strategiesUrl(feature)}/${json(res).id}`
    const patched = await send('PATCH', url, [{ op: 'add', path: '/variants/-', value: { name: 'green', weight: 0 } }])
    expect(json(patched).variants.map((v: { weight: number }) => v.weight)).toEqual([400, 200, 400])
    for (const [operations, path] of [
      [[{ op: 'replace', path: '/variants/0/weightType', value: 'fix' }, { op: 'replace', path: '/variants/2/weightType', value: 'fix' }], '/strategy/variants'],
      [[{ op: 'replace', path: '/variants/0/payload', value: { type: 'json', value: 'not json' } }], '/strategy/variants/0/payload/value'],
      [[{ op: 'replace', path: '/variants/1/name', value: 'blue' }], '/strategy/variants/1/name'],
    ] as const) {
      expect(expectProblem(await send('PATCH', url, operations), 400, 'BadDataError').details[0].path, JSON.stringify(operations)).toBe(path)
    }
    await post(`${base}/${feature}/environments/development/on`)
    const served = json(await poll(await clientToken(), feature, '5.2.0')).features[0].strategies[0].variants
    expect(served).toEqual(json(patched).variants)
  })
})
