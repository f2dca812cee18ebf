import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase, type DatabaseHandle } from '../../../src/db/database.js'
import { auth, buildTestApp, createFeature, type TestApp, testConfig } from '../../helpers/app.js'
import { eventsOf, featureState } from '../../helpers/state.js'

let first: TestApp
let second: { app: App; database: DatabaseHandle }
beforeAll(async () => {
  first = await buildTestApp()
  const config = testConfig(first.databaseUrl)
  const database = await createDatabase(config)
  second = { app: await buildApp(config, { database }), database }
})
afterAll(async () => {
  await second.app.close()
  await second.database.db.destroy()
  await first.close()
})

describe('two instances on one database', () => {
  it('50 concurrent writers split across both: no lost update, one event per change', async () => {
    const feature = await createFeature(first.app)
    const url = `/api/admin/projects/default/features/${feature}/environments/production/variants`
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? first.app : second.app).inject({
          method: 'PATCH',
          url,
          headers: auth(),
          payload: [{ op: 'add', path: '/-', value: { name: `w${i}`, weight: 0 } }],
        })
      )
    )
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200))
    const state = await featureState(first.database.db, feature)
    const prod = state.environments.find((e) => e.environment_name === 'production')
    const names = (prod?.variants as { name: string }[]).map((v) => v.name).sort()
    expect(names).toEqual(Array.from({ length: 50 }, (_, i) => `w${i}`).sort())
    expect(prod?.revision).toBe(51)
    const changes = (await eventsOf(first.database.db, feature)).filter(
      (e) => e.type === 'feature-environment-variants-updated'
    )
    expect(changes).toHaveLength(50)
    // the events form one serial history: each one's preData is the previous one's data
    for (let i = 1; i < changes.length; i++) {
      expect(changes[i]?.pre_data).toEqual(changes[i - 1]?.data)
    }
  })

  it('a token deleted on one instance stops working on the other within TOKEN_CACHE_MS', async () => {
    const created = await first.app.inject({
      method: 'POST',
      url: '/api/admin/api-tokens',
      headers: auth(),
      payload: { tokenName: 'short-lived' },
    })
    const secret = created.json().secret
    const use = () => second.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth(secret) })
    expect((await use()).statusCode).toBe(200)
    await first.app.inject({ method: 'DELETE', url: '/api/admin/api-tokens/short-lived', headers: auth() })
    await new Promise((resolve) => setTimeout(resolve, first.config.tokenCacheMs + 50))
    expect((await use()).statusCode).toBe(401)
  })
})
