/**
 * Real Unleash 8.2 through test/helpers/unleash.ts: a gradual rollout made through its admin API
 * reaches the official Node SDK through its client API, and its tokens, login and personal access
 * token work as the side-by-side tests need them.
 */
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createDatabase, dropDatabase } from '../helpers/database.js'
import { type RunningUnleash, startUnleash } from '../helpers/unleash.js'

const serverUrl = inject('postgresUrl')
let databaseUrl: string
let unleash: RunningUnleash

beforeAll(async () => {
  databaseUrl = await createDatabase(serverUrl, 'unleash')
  unleash = await startUnleash({ databaseUrl })
  console.log(`Unleash started in ${unleash.startupMs} ms on a fresh database`)
})

afterAll(async () => {
  await unleash?.stop()
  if (databaseUrl) await dropDatabase(serverUrl, databaseUrl)
})

async function admin (method: string, path: string, body?: unknown, headers = unleash.adminHeaders) {
  const res = await fetch(`${unleash.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

describe('Unleash 8.2 beside us', () => {
  it('serves a gradual rollout made through its admin API to the official SDK', async () => {
    const features = '/api/admin/projects/default/features'
    expect((await admin('POST', features, { name: 'launcher-rollout' })).status).toBe(201)
    expect((await admin('POST', `${features}/launcher-rollout/environments/development/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'launcher-rollout' },
    })).status).toBe(200)
    // Environment variants are on (experimental enableLegacyVariants).
    expect((await admin('PUT', `${features}/launcher-rollout/environments/development/variants`, [
      { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'b' } },
    ])).status).toBe(200)
    expect((await admin('POST', `${features}/launcher-rollout/environments/development/on`)).status).toBe(200)

    const sdk = new Unleash({
      url: `${unleash.url}/api`,
      appName: 'launcher-test',
      customHeaders: { Authorization: await unleash.createClientToken() },
      disableMetrics: true,
      refreshInterval: 1000,
      storageProvider: new InMemStorageProvider(),
    })
    sdk.on('error', () => {})
    try {
      await once(sdk, 'synchronized')
      const users = Array.from({ length: 100 }, (_, i) => `user-${i}`)
      const answers = users.map((userId) => sdk.isEnabled('launcher-rollout', { userId }))
      // Unleash's own evaluation (its playground) agrees with the SDK's, user by user.
      for (const [i, userId] of users.entries()) {
        const played = await admin('POST', '/api/admin/playground', {
          projects: '*', environment: 'development', context: { appName: 'launcher-test', userId },
        })
        expect(played.status).toBe(200)
        const feature = played.body.features.find((f: { name: string }) => f.name === 'launcher-rollout')
        expect(feature.isEnabled, userId).toBe(answers[i])
      }
      const on = answers.filter(Boolean).length
      expect(on).toBeGreaterThan(30)
      expect(on).toBeLessThan(70)
      // Sticky on userId: without one, the rollout is off.
      expect(sdk.isEnabled('launcher-rollout', {})).toBe(false)
      const enabledUser = users[answers.indexOf(true)] as string
      expect(sdk.getVariant('launcher-rollout', { userId: enabledUser })).toMatchObject({
        name: 'blue', enabled: true, payload: { type: 'string', value: 'b' },
      })
    } finally {
      sdk.destroy()
    }
  })

  it('makes frontend tokens, and personal access tokens after logging in as its first admin', async () => {
    const frontend = await unleash.createFrontendToken()
    const res = await fetch(`${unleash.url}/api/frontend?userId=user-1`, { headers: { authorization: frontend } })
    expect(res.status).toBe(200)
    expect(await res.json()).toHaveProperty('toggles')

    const cookie = await unleash.login()
    expect(cookie).toMatch(/^unleash-session=/)
    expect((await admin('GET', '/api/admin/user', undefined, { cookie })).body.user).toMatchObject({ username: 'admin' })

    // Unleash's features-batch import refuses admin API tokens and takes a personal access token.
    const pat = await unleash.createPersonalAccessToken()
    const exported = await admin('POST', '/api/admin/features-batch/export', { environment: 'development', features: ['launcher-rollout'] })
    expect(exported.status).toBe(200)
    const data = JSON.parse(JSON.stringify(exported.body).replaceAll('launcher-rollout', 'launcher-imported'))
    const body = { project: 'default', environment: 'development', data }
    expect((await admin('POST', '/api/admin/features-batch/import', body)).status).toBe(400)
    const withPat = { authorization: pat, 'content-type': 'application/json' }
    expect((await admin('POST', '/api/admin/features-batch/validate', body, withPat)).body).toMatchObject({ errors: [] })
    expect((await admin('POST', '/api/admin/features-batch/import', body, withPat)).status).toBe(200)
    const imported = await admin('GET', '/api/admin/projects/default/features/launcher-imported')
    expect(imported.body.environments.find((e: { name: string }) => e.name === 'development')).toMatchObject({
      enabled: true,
      strategies: [expect.objectContaining({ name: 'flexibleRollout', parameters: expect.objectContaining({ rollout: '50' }) })],
    })
  })

  it('stops: the process is gone, the port no longer answers, the log is removed', async () => {
    const other = await startUnleash({ databaseUrl })
    expect(existsSync(other.logFile)).toBe(true)
    await other.stop()
    expect(() => process.kill(other.pid, 0)).toThrow(/ESRCH/)
    await expect(fetch(`${other.url}/health`)).rejects.toThrow()
    expect(existsSync(other.logFile)).toBe(false)
  })
})
