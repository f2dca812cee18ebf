import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, createFeature, useTestApp } from '../../helpers/app.js'
import { listen } from '../../helpers/people.js'
import { eventually, startRelay, type TestRelay } from '../../helpers/relay.js'
import { requests } from '../../helpers/requests.js'

const t = useTestApp()
const { clientToken, frontendToken } = requests(t)
let upstream = ''
let relay: TestRelay
let client = ''
let frontend = ''

beforeAll(async () => {
  upstream = await listen(t)
  client = await clientToken()
  frontend = await frontendToken()
  relay = await startRelay(upstream, { TOKENS: `${client},${frontend}` })
})
afterAll(() => relay?.close())

const get = async (base: string, path: string, secret: string) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: secret } })
  return { status: res.status, body: await res.json() as any, etag: res.headers.get('etag') }
}

describe('smoke', () => {
  it('serves the client API and the frontend API as the upstream does, and follows a change', async () => {
    const feature = await createFeature(t.app)
    await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${feature}/environments/development/on`, headers: auth() })
    await eventually(async () => (await get(relay.url, '/api/client/features', client)).body.features.some((f: any) => f.name === feature && f.enabled), 'the relay sees the feature on')
    const [up, down] = [await get(upstream, '/api/client/features', client), await get(relay.url, '/api/client/features', client)]
    expect(down.body).toEqual(up.body)
    const front = [await get(upstream, '/api/frontend?userId=1', frontend), await get(relay.url, '/api/frontend?userId=1', frontend)]
    expect(front[1]!.body).toEqual(front[0]!.body)
    expect(front[1]!.status).toBe(200)
  })
})
