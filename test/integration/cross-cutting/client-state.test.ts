/**
 * What SDKs read is never stale: the client state version moves for every committed change,
 * even one that commits after a newer one (a transaction held open on purpose), and for every
 * write route; ETags compare weakly; readiness and 405s as a load balancer and an SDK see them.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, createFeature, documentedRoutes, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { type Browser, createUser, listen, PASSWORD, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { eventually } from '../../helpers/eventually.js'

const t = useTestApp({ CLIENT_STATE_CACHE_MS: '0', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' })
let server = ''
beforeAll(async () => {
  server = await listen(t)
})

/** A fetch Response as the table reads an inject answer. */
const asInject = async (res: Response) => ({ statusCode: res.status, body: await res.text() })

const { clientToken, frontendToken, send } = requests(t)

const poll = (secret: string, etag?: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/client/features${query}`, headers: { ...auth(secret), ...(etag === undefined ? {} : { 'if-none-match': etag }) } })

const variantsUrl = (feature: string, environment = 'development') =>
  `/api/admin/projects/default/features/${feature}/environments/${environment}/variants`

async function connect () {
  const client = new pg.Client({ connectionString: t.databaseUrl })
  await client.connect()
  return client
}

describe('the client state version is commit-ordered', () => {
  it('a change that commits after a newer one is still served (a transaction held open on purpose)', async () => {
    const secret = await clientToken()
    const slow = await createFeature(t.app)
    const fast = await createFeature(t.app)
    // The slow writer does what the service's writers do (the change, then its event and the
    // version's counter, then COMMIT), but its commit is slow: its event gets its id first, and
    // it commits last.
    const holder = await connect()
    try {
      await holder.query('BEGIN')
      await holder.query("UPDATE feature_environments SET enabled = true WHERE feature_name = $1 AND environment_name = 'development'", [slow])
      await holder.query(
        "INSERT INTO events (type, created_by, project, feature_name, environment) VALUES ('feature-environment-enabled', 'slow', 'default', $1, 'development')",
        [slow]
      )
      await holder.query('UPDATE state_version_shards SET changes = changes + 1 WHERE shard = pg_backend_pid() % 256')
      // The fast writer commits meanwhile, with a newer event id.
      expect((await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${fast}/environments/development/on`, headers: auth() })).statusCode).toBe(200)
      const during = await poll(secret)
      expect(during.statusCode).toBe(200)
      await holder.query('COMMIT')
      const after = await poll(secret, during.headers.etag as string)
      expect(after.statusCode).toBe(200)
      const served = json(after).features
      expect(served.find((f: any) => f.name === slow)?.enabled).toBe(true)
      expect(served.find((f: any) => f.name === fast)?.enabled).toBe(true)
    } finally {
      await holder.end()
    }
  })

  it('a variants-batch waiting on a row lock while another change commits is served once it commits', async () => {
    const secret = await clientToken('development')
    const batched = await createFeature(t.app)
    const other = await createFeature(t.app)
    // Production has these variants already: after its wait the batch writes nothing more there.
    await t.app.inject({ method: 'PUT', url: variantsUrl(batched, 'production'), headers: auth(), payload: [{ name: 'late', weight: 0 }] })
    const holder = await connect()
    try {
      await holder.query('BEGIN')
      // Lock the batch's production row: it changes development first, then waits here.
      await holder.query("SELECT 1 FROM feature_environments WHERE feature_name = $1 AND environment_name = 'production' FOR UPDATE", [batched])
      const batch = t.app.inject({
        method: 'PUT',
        url: `/api/admin/projects/default/features/${batched}/variants-batch`,
        headers: auth(),
        payload: { variants: [{ name: 'late', weight: 0 }], environments: ['development', 'production'] },
      })
      await waitingOnALock(holder)
      expect((await t.app.inject({ method: 'POST', url: `/api/admin/projects/default/features/${other}/environments/development/on`, headers: auth() })).statusCode).toBe(200)
      const during = await poll(secret)
      await holder.query('COMMIT')
      expect((await batch).statusCode).toBe(200)
      const after = await poll(secret, during.headers.etag as string)
      expect(after.statusCode).toBe(200)
      expect(json(after).features.find((f: any) => f.name === batched)?.variants).toEqual([
        { name: 'late', weight: 1000, weightType: 'variable', stickiness: 'default' },
      ])
      expect(json(after).features.find((f: any) => f.name === other)?.enabled).toBe(true)
    } finally {
      await holder.end()
    }
  })
})

describe('If-None-Match', () => {
  it('compares weakly: W/"…" (a compressing proxy), lists and * are 304; another tag is 200', async () => {
    const secret = await clientToken()
    const first = await poll(secret)
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[^"]+"$/)
    for (const held of [etag, `W/${etag}`, `"other", W/${etag}`, '*']) {
      const res = await poll(secret, held)
      expect(res.statusCode, held).toBe(304)
      expect(res.headers.etag).toBe(etag)
    }
    for (const held of ['"other"', 'W/"other"', etag.slice(1, -1)]) expect((await poll(secret, held)).statusCode, held).toBe(200)
  })
})

/**
 * Every write route, with a request that succeeds and one that is refused. Each success must
 * record an event (of the listed type) and move the client state version; a refusal must do
 * neither. Usage reports are usage data: they record events only when they move a lifecycle.
 */
interface WriteCase {
  /** `METHOD /route/:pattern` as in the OpenAPI document. */
  route: string
  run(): Promise<{ statusCode: number; body: string }>
  status: number
  event: string
  /** A refused request; `target` is an existing feature, `secret` a client token, `frontend` a frontend token. */
  refuse(target: { feature: string; secret: string; frontend: string }): Promise<{ statusCode: number; body: string }>
}

describe('every write route records an event and moves the client version; a refused one does neither', () => {
  const feature = (prefix: string) => createFeature(t.app, 'default', uniqueName(prefix))
  const post = (url: string, payload?: object, secret?: string) => send('POST', url, payload, secret)
  const base = '/api/admin/projects/default/features'
  const addon = { provider: 'webhook', enabled: false, events: ['feature-created'], parameters: { url: 'http://127.0.0.1:9/hook' } }
  // The webhook the last run created: a refusal acts on it and writes nothing else first.
  let lastAddon = 0
  // The user (and the browser signed in as a user) the last run created, likewise.
  let lastUser = 0
  let lastBrowser: Browser
  // The group the last run created, likewise.
  let lastGroup = 0
  // The sign-up token the last run created, likewise.
  let lastSignup = ''
  const createAddon = async () => {
    lastAddon = json(await post('/api/admin/addons', addon)).id as number
    return lastAddon
  }
  // Change requests: a project with production guarded, and the last draft a new Editor made there.
  let crProject = ''
  let lastDraft: { browser: Browser; id: number; change: number; feature: string; url: string }
  const crDraft = async () => {
    if (crProject === '') {
      crProject = uniqueName('cr')
      await post('/api/admin/projects', { id: crProject, name: 'Change requests' })
      await post(`/api/admin/projects/${crProject}/environments`, { environment: 'production' })
      await t.app.inject({ method: 'PUT', url: `/api/admin/projects/${crProject}/environments/production/change-requests/config`, headers: auth(), payload: { changeRequestsEnabled: true } })
    }
    const { browser } = await signedIn(t, server, 'Editor')
    const name = await createFeature(t.app, crProject, uniqueName('cr'))
    const draft = await (await browser.json('POST', `/api/admin/projects/${crProject}/environments/production/change-requests`, { feature: name, action: 'updateEnabled', payload: { enabled: true } })).json() as any
    lastDraft = { browser, id: draft.id, change: draft.features[0].changes[0].id, feature: name, url: `/api/admin/projects/${crProject}/change-requests/${draft.id}` }
    return lastDraft
  }
  const crSend = async (method: string, path: string, body?: unknown) => asInject(await lastDraft.browser.json(method, path, body))
  /** The answer, once the usage it reported (if any) is written. */
  const flushed = async <T>(answer: Promise<T>) => {
    const res = await answer
    await t.app.usage.flush()
    return res
  }
  const metricsBody = (toggles: object) => ({ appName: 'writes', instanceId: 'i', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles } })

  const cases = (): WriteCase[] => [
    {
      route: 'POST /api/admin/projects',
      run: () => post('/api/admin/projects', { id: uniqueName('p'), name: 'P' }),
      status: 201,
      event: 'project-created',
      refuse: () => post('/api/admin/projects', { id: 'default', name: 'taken' }),
    },
    {
      route: 'POST /api/admin/environments',
      run: () => post('/api/admin/environments', { name: uniqueName('env'), type: 'test' }),
      status: 201,
      event: 'environment-created',
      refuse: () => post('/api/admin/environments', { name: 'development', type: 'taken' }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/environments',
      run: async () => {
        const name = uniqueName('env')
        await post('/api/admin/environments', { name, type: 'test' })
        await sleep(5)
        return post('/api/admin/projects/default/environments', { environment: name })
      },
      status: 200,
      event: 'project-environment-added',
      refuse: () => post('/api/admin/projects/default/environments', { environment: 'nowhere' }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features',
      run: () => post(base, { name: uniqueName('new') }),
      status: 201,
      event: 'feature-created',
      refuse: () => post(base, { name: 'a b' }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/features/:featureName',
      run: async () => t.app.inject({ method: 'DELETE', url: `${base}/${await feature('archive')}`, headers: auth() }),
      status: 202,
      event: 'feature-archived',
      refuse: () => t.app.inject({ method: 'DELETE', url: `${base}/ghost`, headers: auth() }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/revive',
      run: async () => {
        const name = await feature('revive')
        await t.app.inject({ method: 'DELETE', url: `${base}/${name}`, headers: auth() })
        return post('/api/admin/projects/default/revive', { features: [name] })
      },
      status: 200,
      event: 'feature-revived',
      refuse: () => post('/api/admin/projects/default/revive', { features: ['ghost'] }),
    },
    ...(['on', 'off'] as const).map((state): WriteCase => ({
      route: `POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/${state}`,
      run: async () => {
        const name = await feature(state)
        if (state === 'off') await post(`${base}/${name}/environments/development/on`)
        return post(`${base}/${name}/environments/development/${state}`)
      },
      status: 200,
      event: state === 'on' ? 'feature-environment-enabled' : 'feature-environment-disabled',
      refuse: () => post(`${base}/ghost/environments/development/${state}`),
    })),
    {
      route: 'PATCH /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants',
      run: async () => t.app.inject({ method: 'PATCH', url: variantsUrl(await feature('patch')), headers: auth(), payload: [{ op: 'add', path: '/-', value: { name: 'a', weight: 0 } }] }),
      status: 200,
      event: 'feature-environment-variants-updated',
      refuse: ({ feature }) => t.app.inject({ method: 'PATCH', url: variantsUrl(feature), headers: auth(), payload: [{ op: 'remove', path: '/0' }] }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants',
      run: async () => t.app.inject({ method: 'PUT', url: variantsUrl(await feature('put')), headers: auth(), payload: [{ name: 'a', weight: 0 }] }),
      status: 200,
      event: 'feature-environment-variants-updated',
      refuse: ({ feature }) => t.app.inject({ method: 'PUT', url: variantsUrl(feature), headers: auth(), payload: [{ name: 'a', weight: 1000, weightType: 'fix' }] }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/features/:featureName/variants-batch',
      run: async () => t.app.inject({ method: 'PUT', url: `${base}/${await feature('batch')}/variants-batch`, headers: auth(), payload: { variants: [{ name: 'a', weight: 0 }], environments: ['development', 'production'] } }),
      status: 200,
      event: 'feature-environment-variants-updated',
      refuse: ({ feature }) => t.app.inject({ method: 'PUT', url: `${base}/${feature}/variants-batch`, headers: auth(), payload: { variants: [{ name: 'a', weight: 0 }], environments: ['development', 'nowhere'] } }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/lifecycle/complete',
      run: async () => post(`${base}/${await feature('complete')}/lifecycle/complete`, { status: 'kept' }),
      status: 200,
      event: 'feature-completed',
      refuse: ({ feature }) => post(`${base}/${feature}/lifecycle/complete`, { status: 'Kept' }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/lifecycle/uncomplete',
      run: async () => {
        const name = await feature('uncomplete')
        await post(`${base}/${name}/lifecycle/complete`, { status: 'kept' })
        return post(`${base}/${name}/lifecycle/uncomplete`)
      },
      status: 200,
      event: 'feature-uncompleted',
      refuse: () => post(`${base}/ghost/lifecycle/uncomplete`),
    },
    {
      route: 'POST /api/admin/api-tokens',
      run: () => post('/api/admin/api-tokens', { tokenName: uniqueName('tok') }),
      status: 201,
      event: 'api-token-created',
      refuse: () => post('/api/admin/api-tokens', { tokenName: uniqueName('tok'), type: 'client', environments: ['development'] }),
    },
    {
      route: 'DELETE /api/admin/api-tokens/:token',
      run: async () => {
        const secret = json(await post('/api/admin/api-tokens', { tokenName: uniqueName('tok') })).secret as string
        return t.app.inject({ method: 'DELETE', url: `/api/admin/api-tokens/${encodeURIComponent(secret)}`, headers: auth() })
      },
      status: 200,
      event: 'api-token-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/api-tokens/ghost', headers: auth() }),
    },
    {
      route: 'PUT /api/admin/api-tokens/:token',
      run: async () => {
        const secret = json(await post('/api/admin/api-tokens', { tokenName: uniqueName('tok') })).secret as string
        return send('PUT', `/api/admin/api-tokens/${encodeURIComponent(secret)}`, { expiresAt: '2099-01-01T00:00:00Z' })
      },
      status: 200,
      event: 'api-token-updated',
      refuse: ({ secret }) => send('PUT', `/api/admin/api-tokens/${encodeURIComponent(secret)}`, {}),
    },
    {
      route: 'POST /api/admin/projects/:projectId/api-tokens',
      run: () => post('/api/admin/projects/default/api-tokens', { tokenName: uniqueName('tok'), type: 'client', environment: 'development' }),
      status: 201,
      event: 'api-token-created',
      refuse: () => post('/api/admin/projects/default/api-tokens', { tokenName: uniqueName('tok'), type: 'client', environment: 'nowhere' }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/api-tokens/:token',
      run: async () => {
        const secret = json(await post('/api/admin/projects/default/api-tokens', { tokenName: uniqueName('tok'), type: 'client', environment: 'development' })).secret as string
        return t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/api-tokens/${encodeURIComponent(secret)}`, headers: auth() })
      },
      status: 200,
      event: 'api-token-deleted',
      refuse: ({ secret }) => t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/api-tokens/${encodeURIComponent(secret)}`, headers: auth() }),
    },
    {
      route: 'POST /api/admin/strategies',
      run: () => post('/api/admin/strategies', { name: uniqueName('custom'), parameters: [] }),
      status: 201,
      event: 'strategy-created',
      refuse: () => post('/api/admin/strategies', { name: 'default', parameters: [] }),
    },
    {
      route: 'PUT /api/admin/strategies/:name',
      run: async () => {
        const name = uniqueName('custom')
        await post('/api/admin/strategies', { name, parameters: [] })
        return t.app.inject({ method: 'PUT', url: `/api/admin/strategies/${name}`, headers: auth(), payload: { description: 'changed', parameters: [] } })
      },
      status: 200,
      event: 'strategy-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: '/api/admin/strategies/default', headers: auth(), payload: { parameters: [] } }),
    },
    {
      route: 'DELETE /api/admin/strategies/:name',
      run: async () => {
        const name = uniqueName('custom')
        await post('/api/admin/strategies', { name, parameters: [] })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/strategies/${name}`, headers: auth() })
      },
      status: 200,
      event: 'strategy-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/strategies/flexibleRollout', headers: auth() }),
    },
    ...(['deprecate', 'reactivate'] as const).map((action): WriteCase => ({
      route: `POST /api/admin/strategies/:name/${action}`,
      run: async () => {
        const name = uniqueName('custom')
        await post('/api/admin/strategies', { name, parameters: [] })
        if (action === 'reactivate') await post(`/api/admin/strategies/${name}/deprecate`)
        return post(`/api/admin/strategies/${name}/${action}`)
      },
      status: 200,
      event: action === 'deprecate' ? 'strategy-deprecated' : 'strategy-reactivated',
      refuse: () => post(`/api/admin/strategies/ghost/${action}`),
    })),
    {
      route: 'POST /api/admin/segments/strategies',
      run: async () => {
        const segment = json(await post('/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).id as number
        const strategy = json(await post(`${base}/${await feature('segmented')}/environments/development/strategies`, { name: 'default' })).id as string
        return post('/api/admin/segments/strategies', { projectId: 'default', environmentId: 'development', strategyId: strategy, segmentIds: [segment] })
      },
      status: 201,
      event: 'feature-strategy-update',
      refuse: () => post('/api/admin/segments/strategies', { projectId: 'default', environmentId: 'development', strategyId: 'ghost', segmentIds: [] }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies',
      run: async () => post(`${base}/${await feature('strategy')}/environments/development/strategies`, { name: 'default' }),
      status: 200,
      event: 'feature-strategy-add',
      refuse: ({ feature }) => post(`${base}/${feature}/environments/development/strategies`, { name: 'no-such-strategy' }),
    },
    ...(['PUT', 'PATCH', 'DELETE'] as const).map((method): WriteCase => ({
      route: `${method} /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId`,
      run: async () => {
        const name = await feature('strategy')
        const url = `${base}/${name}/environments/development/strategies`
        const { id } = json(await post(url, { name: 'flexibleRollout', parameters: { rollout: '10' } }))
        const payload = method === 'PUT' ? { parameters: { rollout: '20' } } : method === 'PATCH' ? [{ op: 'replace', path: '/parameters/rollout', value: '30' }] : undefined
        return t.app.inject({ method, url: `${url}/${id}`, headers: auth(), ...(payload ? { payload } : {}) })
      },
      status: 200,
      event: method === 'DELETE' ? 'feature-strategy-remove' : 'feature-strategy-update',
      refuse: async ({ feature }) => {
        const url = `${base}/${feature}/environments/development/strategies`
        const existing = json(await t.app.inject({ method: 'GET', url, headers: auth() }))
        const id = existing[0]?.id ?? 'ghost'
        if (method === 'DELETE') return t.app.inject({ method, url: `${url}/ghost`, headers: auth() })
        const payload = method === 'PUT' ? { parameters: { rollout: '101' } } : [{ op: 'remove', path: '/parameters/nothing' }]
        return t.app.inject({ method, url: `${url}/${id}`, headers: auth(), payload })
      },
    })),
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/set-sort-order',
      run: async () => {
        const url = `${base}/${await feature('order')}/environments/development/strategies`
        const first = json(await post(url, { name: 'default' })).id
        const second = json(await post(url, { name: 'default' })).id
        return post(`${url}/set-sort-order`, [{ id: first, sortOrder: 5 }, { id: second, sortOrder: 1 }])
      },
      status: 200,
      event: 'strategy-order-changed',
      refuse: ({ feature }) => post(`${base}/${feature}/environments/development/strategies/set-sort-order`, [{ id: 'ghost', sortOrder: 1 }]),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/features/:featureName',
      run: async () => t.app.inject({ method: 'PUT', url: `${base}/${await feature('meta')}`, headers: auth(), payload: { impressionData: true } }),
      status: 200,
      event: 'feature-metadata-updated',
      refuse: ({ feature }) => t.app.inject({ method: 'PUT', url: `${base}/${feature}`, headers: auth(), payload: { name: 'renamed' } }),
    },
    {
      route: 'POST /api/admin/segments',
      run: () => post('/api/admin/segments', { name: uniqueName('segment'), constraints: [] }),
      status: 201,
      event: 'segment-created',
      refuse: () => post('/api/admin/segments', { name: uniqueName('segment'), constraints: [{ contextName: 'a', operator: 'IN', values: [] }] }),
    },
    ...(['PUT', 'DELETE'] as const).map((method): WriteCase => ({
      route: `${method} /api/admin/segments/:id`,
      run: async () => {
        const { id } = json(await post('/api/admin/segments', { name: uniqueName('segment'), constraints: [] }))
        return t.app.inject({ method, url: `/api/admin/segments/${id}`, headers: auth(), ...(method === 'PUT' ? { payload: { name: uniqueName('renamed'), constraints: [] } } : {}) })
      },
      status: 204,
      event: method === 'PUT' ? 'segment-updated' : 'segment-deleted',
      refuse: () => t.app.inject({ method, url: '/api/admin/segments/999999', headers: auth(), ...(method === 'PUT' ? { payload: { name: 'x', constraints: [] } } : {}) }),
    })),
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/dependencies',
      run: async () => post(`${base}/${await feature('child')}/dependencies`, { feature: await feature('parent') }),
      status: 200,
      event: 'feature-dependency-added',
      refuse: ({ feature }) => post(`${base}/${feature}/dependencies`, { feature }),
    },
    ...(['one', 'all'] as const).map((which): WriteCase => ({
      route: `DELETE /api/admin/projects/:projectId/features/:featureName/dependencies${which === 'one' ? '/:parent' : ''}`,
      run: async () => {
        const child = await feature('child')
        const parent = await feature('parent')
        await post(`${base}/${child}/dependencies`, { feature: parent })
        return t.app.inject({ method: 'DELETE', url: `${base}/${child}/dependencies${which === 'one' ? `/${parent}` : ''}`, headers: auth() })
      },
      status: 200,
      event: which === 'one' ? 'feature-dependency-removed' : 'feature-dependencies-removed',
      refuse: () => t.app.inject({ method: 'DELETE', url: `${base}/ghost/dependencies${which === 'one' ? '/other' : ''}`, headers: auth() }),
    })),
    {
      // A browser SDK's first evaluation moves the lifecycle too.
      route: 'POST /api/frontend/client/metrics',
      // Counts are written (and the lifecycle moved) at the next flush of the usage.
      run: async () => flushed(post('/api/frontend/client/metrics', metricsBody({ [await feature('web')]: { yes: 1, no: 0 } }), await frontendToken())),
      status: 200,
      event: 'feature-lifecycle-stage-entered',
      refuse: ({ feature, frontend }) => post('/api/frontend/client/metrics', metricsBody({ [feature]: { yes: -1, no: 0 } }), frontend),
    },
    {
      route: 'POST /api/admin/addons',
      run: () => post('/api/admin/addons', addon),
      status: 201,
      event: 'addon-config-created',
      refuse: () => post('/api/admin/addons', { ...addon, parameters: { url: 'http://10.0.0.1/hook' } }),
    },
    {
      route: 'PUT /api/admin/addons/:id',
      run: async () => t.app.inject({ method: 'PUT', url: `/api/admin/addons/${await createAddon()}`, headers: auth(), payload: { ...addon, description: 'changed' } }),
      status: 200,
      event: 'addon-config-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: `/api/admin/addons/${lastAddon}`, headers: auth(), payload: { ...addon, events: [] } }),
    },
    {
      route: 'DELETE /api/admin/addons/:id',
      run: async () => t.app.inject({ method: 'DELETE', url: `/api/admin/addons/${await createAddon()}`, headers: auth() }),
      status: 200,
      event: 'addon-config-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/addons/2147483647', headers: auth() }),
    },
    {
      route: 'POST /api/admin/addons/:id/rotate-secret',
      run: async () => post(`/api/admin/addons/${await createAddon()}/rotate-secret`),
      status: 200,
      event: 'addon-secret-rotated',
      refuse: () => post('/api/admin/addons/2147483647/rotate-secret'),
    },
    {
      route: 'POST /api/admin/addons/:id/deliveries/:deliveryId/redeliver',
      run: async () => {
        // An enabled webhook for api-token-created: creating a token makes a delivery (which the
        // dispatcher fails to send to port 9; attempts change nothing readers see).
        lastAddon = json(await post('/api/admin/addons', { ...addon, enabled: true, events: ['api-token-created'] })).id
        await post('/api/admin/api-tokens', { tokenName: uniqueName('tok') })
        const [delivery] = json(await t.app.inject({ method: 'GET', url: `/api/admin/addons/${lastAddon}/deliveries`, headers: auth() })).deliveries
        return post(`/api/admin/addons/${lastAddon}/deliveries/${delivery.id}/redeliver`)
      },
      status: 200,
      event: 'addon-delivery-redelivered',
      refuse: () => post(`/api/admin/addons/${lastAddon}/deliveries/${Number.MAX_SAFE_INTEGER}/redeliver`),
    },
    {
      route: 'POST /api/admin/context',
      run: () => post('/api/admin/context', { name: uniqueName('ctx') }),
      status: 201,
      event: 'context-field-created',
      refuse: () => post('/api/admin/context', { name: 'appName' }),
    },
    ...(['PUT', 'DELETE'] as const).map((method): WriteCase => ({
      route: `${method} /api/admin/context/:name`,
      run: async () => {
        const name = uniqueName('ctx')
        await post('/api/admin/context', { name })
        return t.app.inject({ method, url: `/api/admin/context/${name}`, headers: auth(), ...(method === 'PUT' ? { payload: { stickiness: true } } : {}) })
      },
      status: 200,
      event: method === 'PUT' ? 'context-field-updated' : 'context-field-deleted',
      refuse: () => t.app.inject({ method, url: '/api/admin/context/ghost', headers: auth(), ...(method === 'PUT' ? { payload: {} } : {}) }),
    })),
    {
      route: 'POST /api/admin/context/:name/legal-values',
      run: () => post('/api/admin/context/appName/legal-values', { value: uniqueName('app') }),
      status: 200,
      event: 'context-field-updated',
      refuse: () => post('/api/admin/context/ghost/legal-values', { value: 'x' }),
    },
    {
      route: 'DELETE /api/admin/context/:name/legal-values/:legalValue',
      run: async () => {
        const value = uniqueName('app')
        await post('/api/admin/context/appName/legal-values', { value })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/context/appName/legal-values/${value}`, headers: auth() })
      },
      status: 200,
      event: 'context-field-updated',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/context/ghost/legal-values/x', headers: auth() }),
    },
    {
      route: 'POST /api/admin/tag-types',
      run: () => post('/api/admin/tag-types', { name: uniqueName('tt') }),
      status: 201,
      event: 'tag-type-created',
      refuse: () => post('/api/admin/tag-types', { name: 'simple' }),
    },
    ...(['PUT', 'DELETE'] as const).map((method): WriteCase => ({
      route: `${method} /api/admin/tag-types/:name`,
      run: async () => {
        const name = uniqueName('tt')
        await post('/api/admin/tag-types', { name })
        return t.app.inject({ method, url: `/api/admin/tag-types/${name}`, headers: auth(), ...(method === 'PUT' ? { payload: { description: 'changed' } } : {}) })
      },
      status: 200,
      event: method === 'PUT' ? 'tag-type-updated' : 'tag-type-deleted',
      refuse: () => t.app.inject({ method, url: method === 'PUT' ? '/api/admin/tag-types/ghost' : '/api/admin/tag-types/x', headers: auth(), ...(method === 'PUT' ? { payload: {} } : {}) }),
    })),
    {
      route: 'POST /api/admin/tags',
      run: () => post('/api/admin/tags', { value: uniqueName('tag') }),
      status: 201,
      event: 'tag-created',
      refuse: () => post('/api/admin/tags', { value: 'orphan', type: 'nosuchtype' }),
    },
    {
      route: 'DELETE /api/admin/tags/:type/:value',
      run: async () => {
        const value = uniqueName('tag')
        await post('/api/admin/tags', { value })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/tags/simple/${value}`, headers: auth() })
      },
      status: 200,
      event: 'tag-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/tags/x/value', headers: auth() }),
    },
    {
      route: 'POST /api/admin/features/:featureName/tags',
      run: async () => post(`/api/admin/features/${await feature('tagged')}/tags`, { value: 'tagged' }),
      status: 201,
      event: 'feature-tagged',
      refuse: () => post('/api/admin/features/ghost/tags', { value: 'tagged' }),
    },
    {
      route: 'PUT /api/admin/features/:featureName/tags',
      run: async () => t.app.inject({ method: 'PUT', url: `/api/admin/features/${await feature('tagged')}/tags`, headers: auth(), payload: { addedTags: [{ value: 'tagged' }], removedTags: [] } }),
      status: 200,
      event: 'feature-tagged',
      refuse: ({ feature }) => t.app.inject({ method: 'PUT', url: `/api/admin/features/${feature}/tags`, headers: auth(), payload: { addedTags: [{ value: 'x', type: 'nosuchtype' }], removedTags: [] } }),
    },
    {
      route: 'DELETE /api/admin/features/:featureName/tags/:type/:value',
      run: async () => {
        const name = await feature('tagged')
        await post(`/api/admin/features/${name}/tags`, { value: 'tagged' })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/features/${name}/tags/simple/tagged`, headers: auth() })
      },
      status: 200,
      event: 'feature-untagged',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/features/ghost/tags/simple/tagged', headers: auth() }),
    },
    {
      route: 'PUT /api/admin/feature-types/:id/lifetime',
      run: () => t.app.inject({ method: 'PUT', url: '/api/admin/feature-types/experiment/lifetime', headers: auth(), payload: { lifetimeDays: 1 + Math.floor(Math.random() * 1_000_000) } }),
      status: 200,
      event: 'feature-type-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: '/api/admin/feature-types/ghost/lifetime', headers: auth(), payload: { lifetimeDays: 1 } }),
    },
    {
      route: 'POST /api/admin/features-batch/import',
      run: () => post('/api/admin/features-batch/import', { project: 'default', environment: 'development', data: { features: [{ name: uniqueName('imported') }], featureStrategies: [] } }),
      status: 200,
      event: 'features-imported',
      refuse: () => post('/api/admin/features-batch/import', { project: 'default', environment: 'development', data: { features: [{ name: uniqueName('imported') }], featureStrategies: [{ name: 'no-such-strategy', featureName: 'x' }] } }),
    },
    {
      route: 'POST /api/admin/user-admin',
      run: () => post('/api/admin/user-admin', { username: uniqueName('u'), rootRole: 'Viewer', password: PASSWORD }),
      status: 201,
      event: 'user-created',
      refuse: () => post('/api/admin/user-admin', { username: uniqueName('u'), rootRole: 'Viewer', password: 'password1234' }),
    },
    {
      route: 'PUT /api/admin/user-admin/:id',
      run: async () => t.app.inject({ method: 'PUT', url: `/api/admin/user-admin/${(await createUser(t, 'Viewer')).id}`, headers: auth(), payload: { rootRole: 'Editor' } }),
      status: 200,
      event: 'user-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: '/api/admin/user-admin/999999', headers: auth(), payload: { rootRole: 'Editor' } }),
    },
    {
      route: 'DELETE /api/admin/user-admin/:id',
      run: async () => t.app.inject({ method: 'DELETE', url: `/api/admin/user-admin/${(await createUser(t, 'Viewer')).id}`, headers: auth() }),
      status: 200,
      event: 'user-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/user-admin/999999', headers: auth() }),
    },
    {
      route: 'POST /api/admin/user-admin/:id/change-password',
      run: async () => post(`/api/admin/user-admin/${(await createUser(t, 'Viewer')).id}/change-password`, { password: 'another-password-9' }),
      status: 200,
      event: 'user-updated',
      refuse: () => post('/api/admin/user-admin/999999/change-password', { password: 'another-password-9' }),
    },
    {
      route: 'POST /api/admin/user/change-password',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        return asInject(await lastBrowser.json('POST', '/api/admin/user/change-password', { password: 'another-password-9', oldPassword: PASSWORD }))
      },
      status: 200,
      event: 'user-updated',
      refuse: async () => asInject(await lastBrowser.json('POST', '/api/admin/user/change-password', { password: 'password1234', oldPassword: 'another-password-9' })),
    },
    {
      route: 'POST /api/admin/user/tokens',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        return asInject(await lastBrowser.json('POST', '/api/admin/user/tokens', { description: 'pat', expiresAt: new Date(Date.now() + 60_000).toISOString() }))
      },
      status: 201,
      event: 'pat-created',
      refuse: async () => asInject(await lastBrowser.json('POST', '/api/admin/user/tokens', { description: 'pat', expiresAt: new Date(Date.now() + 60_000).toISOString() })),
    },
    {
      route: 'DELETE /api/admin/user/tokens/:id',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        const pat = await (await lastBrowser.json('POST', '/api/admin/user/tokens', { description: 'pat', expiresAt: new Date(Date.now() + 60_000).toISOString() })).json() as { id: number }
        return asInject(await lastBrowser.fetch(`/api/admin/user/tokens/${pat.id}`, { method: 'DELETE' }))
      },
      status: 200,
      event: 'pat-deleted',
      refuse: async () => asInject(await lastBrowser.fetch('/api/admin/user/tokens/999999', { method: 'DELETE' })),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/users/:userId/roles',
      run: async () => {
        lastUser = (await createUser(t, 'Viewer')).id
        return t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/users/${lastUser}/roles`, headers: auth(), payload: { roles: [5] } })
      },
      status: 200,
      event: 'project-access-user-roles-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/users/${lastUser}/roles`, headers: auth(), payload: { roles: [1] } }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/users/:userId/roles',
      run: async () => {
        const { id } = await createUser(t, 'Viewer')
        await t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/users/${id}/roles`, headers: auth(), payload: { roles: [5] } })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/users/${id}/roles`, headers: auth() })
      },
      status: 200,
      event: 'project-access-user-roles-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/projects/default/users/999999/roles', headers: auth() }),
    },
    {
      route: 'POST /api/admin/auth/oidc/settings',
      run: () => post('/api/admin/auth/oidc/settings', { emailDomains: `${uniqueName('d')}.example` }),
      status: 200,
      event: 'setting-created',
      // Enabled without a provider or a client: refused before anything is fetched or written.
      refuse: () => post('/api/admin/auth/oidc/settings', { enabled: true }),
    },
    {
      route: 'POST /api/admin/auth/simple/settings',
      run: () => post('/api/admin/auth/simple/settings', { disabled: false }),
      status: 200,
      event: 'setting-created',
      // Password login cannot go off while single sign-on is off.
      refuse: () => post('/api/admin/auth/simple/settings', { disabled: true }),
    },
    {
      route: 'POST /api/admin/groups',
      run: async () => post('/api/admin/groups', { name: uniqueName('g'), users: [{ user: { id: (await createUser(t, 'Viewer')).id } }] }),
      status: 201,
      event: 'group-created',
      refuse: () => post('/api/admin/groups', { name: uniqueName('g'), users: [{ user: { id: 999999 } }] }),
    },
    {
      route: 'PUT /api/admin/groups/:groupId',
      run: async () => {
        lastGroup = json(await post('/api/admin/groups', { name: uniqueName('g') })).id as number
        return t.app.inject({ method: 'PUT', url: `/api/admin/groups/${lastGroup}`, headers: auth(), payload: { name: uniqueName('renamed'), rootRole: 2 } })
      },
      status: 200,
      event: 'group-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: `/api/admin/groups/${lastGroup}`, headers: auth(), payload: { name: uniqueName('g'), users: [{ user: { id: 999999 } }] } }),
    },
    {
      route: 'DELETE /api/admin/groups/:groupId',
      run: async () => t.app.inject({ method: 'DELETE', url: `/api/admin/groups/${json(await post('/api/admin/groups', { name: uniqueName('g') })).id}`, headers: auth() }),
      status: 200,
      event: 'group-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/groups/999999', headers: auth() }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/groups/:groupId/roles',
      run: async () => {
        lastGroup = json(await post('/api/admin/groups', { name: uniqueName('g') })).id as number
        return t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/groups/${lastGroup}/roles`, headers: auth(), payload: { roles: [5] } })
      },
      status: 200,
      event: 'project-access-group-roles-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/groups/${lastGroup}/roles`, headers: auth(), payload: { roles: [1] } }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/groups/:groupId/roles',
      run: async () => {
        const id = json(await post('/api/admin/groups', { name: uniqueName('g') })).id as number
        await t.app.inject({ method: 'PUT', url: `/api/admin/projects/default/groups/${id}/roles`, headers: auth(), payload: { roles: [5] } })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/projects/default/groups/${id}/roles`, headers: auth() })
      },
      status: 200,
      event: 'project-access-group-roles-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: '/api/admin/projects/default/groups/999999/roles', headers: auth() }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/stale',
      run: async () => post('/api/admin/projects/default/stale', { features: [await feature('stale')], stale: true }),
      status: 202,
      event: 'feature-stale-on',
      refuse: ({ feature }) => post('/api/admin/projects/default/stale', { features: [feature, 'ghost'], stale: true }),
    },
    {
      route: 'POST /api/admin/metrics/applications/:appName',
      run: () => post(`/api/admin/metrics/applications/${uniqueName('app')}`, { description: 'described', color: 'red' }),
      status: 202,
      event: 'application-created',
      refuse: () => post(`/api/admin/metrics/applications/${uniqueName('app')}`, { colour: 'red' }),
    },
    {
      route: 'DELETE /api/admin/metrics/applications/:appName',
      run: async () => {
        const name = uniqueName('app')
        await post(`/api/admin/metrics/applications/${name}`, { description: 'to forget' })
        return t.app.inject({ method: 'DELETE', url: `/api/admin/metrics/applications/${name}`, headers: auth() })
      },
      status: 200,
      event: 'application-deleted',
      refuse: () => t.app.inject({ method: 'DELETE', url: `/api/admin/metrics/applications/${'x'.repeat(300)}`, headers: auth() }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/environments/:environment/change-requests/config',
      run: async () => {
        const id = uniqueName('p')
        await post('/api/admin/projects', { id, name: id })
        await post(`/api/admin/projects/${id}/environments`, { environment: 'development' })
        return t.app.inject({ method: 'PUT', url: `/api/admin/projects/${id}/environments/development/change-requests/config`, headers: auth(), payload: { changeRequestsEnabled: true } })
      },
      status: 200,
      event: 'change-request-configuration-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: '/api/admin/projects/default/environments/development/change-requests/config', headers: auth(), payload: { changeRequestsEnabled: true, requiredApprovals: -1 } }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/environments/:environment/change-requests',
      run: async () => {
        await crDraft()
        return crSend('POST', `/api/admin/projects/${crProject}/environments/production/change-requests`, { feature: lastDraft.feature, action: 'addStrategy', payload: { name: 'default' } })
      },
      status: 200,
      event: 'change-added',
      refuse: () => crSend('POST', `/api/admin/projects/${crProject}/environments/production/change-requests`, { feature: lastDraft.feature, action: 'addStrategy', payload: { name: 'no-such-definition' } }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId',
      run: async () => crSend('PUT', `${(await crDraft()).url}/changes/${lastDraft.change}`, { feature: lastDraft.feature, action: 'updateEnabled', payload: { enabled: false } }),
      status: 200,
      event: 'change-edited',
      refuse: () => crSend('PUT', `${lastDraft.url}/changes/999999`, { feature: lastDraft.feature, action: 'updateEnabled', payload: { enabled: false } }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId',
      run: async () => crSend('DELETE', `${(await crDraft()).url}/changes/${lastDraft.change}`),
      status: 200,
      event: 'change-discarded',
      refuse: () => crSend('DELETE', `${lastDraft.url}/changes/999999`),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/change-requests/:id',
      run: async () => crSend('DELETE', (await crDraft()).url),
      status: 200,
      event: 'change-request-discarded',
      refuse: () => crSend('DELETE', lastDraft.url),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/change-requests/:id/state',
      run: async () => crSend('PUT', `${(await crDraft()).url}/state`, { state: 'In review' }),
      status: 200,
      event: 'change-request-sent-to-review',
      refuse: () => crSend('PUT', `${lastDraft.url}/state`, { state: 'Approved' }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/change-requests/:id/title',
      run: async () => crSend('PUT', `${(await crDraft()).url}/title`, { title: 'A title' }),
      status: 204,
      event: 'change-request-title-updated',
      refuse: () => crSend('PUT', `${lastDraft.url}/title`, { title: 5 }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/change-requests/:id/approvers',
      run: async () => {
        const reviewer = await createUser(t, 'Editor')
        return crSend('PUT', `${(await crDraft()).url}/approvers`, { reviewers: [reviewer.id] })
      },
      status: 204,
      event: 'change-request-requested-approvers-updated',
      refuse: () => crSend('PUT', `${lastDraft.url}/approvers`, { reviewers: [999999] }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/change-requests/:id/comments',
      run: async () => crSend('POST', `${(await crDraft()).url}/comments`, { text: 'A comment' }),
      status: 204,
      event: 'change-request-comment-added',
      refuse: () => crSend('POST', `${lastDraft.url}/comments`, { text: '' }),
    },
    {
      route: 'PATCH /api/admin/projects/:projectId/features/:featureName',
      run: async () => send('PATCH', `${base}/${await feature('patch')}`, [{ op: 'replace', path: '/stale', value: true }]),
      status: 200,
      event: 'feature-stale-on',
      refuse: ({ feature }) => send('PATCH', `${base}/${feature}`, [{ op: 'replace', path: '/type', value: 'nonsense' }]),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/clone',
      run: async () => post(`${base}/${await feature('source')}/clone`, { name: uniqueName('copy') }),
      status: 201,
      event: 'feature-created',
      refuse: ({ feature }) => post(`${base}/${feature}/clone`, { name: feature }),
    },
    ...(['on', 'off'] as const).map((state): WriteCase => ({
      route: `POST /api/admin/projects/:projectId/bulk_features/environments/:environment/${state}`,
      run: async () => {
        const names = [await feature(`bulk-${state}`), await feature(`bulk-${state}`)]
        if (state === 'off') for (const name of names) await post(`${base}/${name}/environments/development/on`)
        return post(`/api/admin/projects/default/bulk_features/environments/development/${state}`, { features: names })
      },
      status: 200,
      event: state === 'on' ? 'feature-environment-enabled' : 'feature-environment-disabled',
      refuse: ({ feature }) => post(`/api/admin/projects/default/bulk_features/environments/development/${state}`, { features: [feature, 'ghost'] }),
    })),
    {
      route: 'POST /api/admin/projects/:projectId/archive',
      run: async () => post('/api/admin/projects/default/archive', { features: [await feature('bulk-archive')] }),
      status: 202,
      event: 'feature-archived',
      refuse: ({ feature }) => post('/api/admin/projects/default/archive', { features: [feature, 'ghost'] }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/delete',
      run: async () => {
        const name = await feature('delete')
        await post('/api/admin/projects/default/archive', { features: [name] })
        return post('/api/admin/projects/default/delete', { features: [name] })
      },
      status: 200,
      event: 'feature-deleted',
      refuse: () => post('/api/admin/projects/default/delete', { features: ['ghost'] }),
    },
    {
      // What Terraform calls after archiving.
      route: 'DELETE /api/admin/archive/:featureName',
      run: async () => {
        const name = await feature('terraform')
        await t.app.inject({ method: 'DELETE', url: `${base}/${name}`, headers: auth() })
        return send('DELETE', `/api/admin/archive/${name}`)
      },
      status: 200,
      event: 'feature-deleted',
      refuse: ({ feature, secret }) => send('DELETE', `/api/admin/archive/${feature}`, undefined, secret),
    },
    {
      route: 'POST /api/admin/archive/revive/:featureName',
      run: async () => {
        const name = await feature('revive-one')
        await t.app.inject({ method: 'DELETE', url: `${base}/${name}`, headers: auth() })
        return post(`/api/admin/archive/revive/${name}`)
      },
      status: 200,
      event: 'feature-revived',
      refuse: () => post('/api/admin/archive/revive/ghost'),
    },
    {
      route: 'POST /api/admin/projects/:projectId/features/:featureName/link',
      run: async () => post(`${base}/${await feature('link')}/link`, { url: 'github.com/org/repo/issues/1', title: 'The issue' }),
      status: 204,
      event: 'feature-link-added',
      refuse: ({ feature }) => post(`${base}/${feature}/link`, { url: 'javascript:alert(1)' }),
    },
    {
      route: 'PUT /api/admin/projects/:projectId/features/:featureName/link/:linkId',
      run: async () => {
        const name = await feature('link')
        await post(`${base}/${name}/link`, { url: 'https://example.com/a' })
        const [link] = json(await send('GET', `${base}/${name}`)).links
        return send('PUT', `${base}/${name}/link/${link.id}`, { url: 'https://example.com/b', title: 'B' })
      },
      status: 204,
      event: 'feature-link-updated',
      refuse: ({ feature }) => send('PUT', `${base}/${feature}/link/01ARZ3NDEKTSV4RRFFQ69G5FAV`, { url: 'https://example.com/b' }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/features/:featureName/link/:linkId',
      run: async () => {
        const name = await feature('link')
        await post(`${base}/${name}/link`, { url: 'https://example.com/a' })
        const [link] = json(await send('GET', `${base}/${name}`)).links
        return send('DELETE', `${base}/${name}/link/${link.id}`)
      },
      status: 204,
      event: 'feature-link-removed',
      refuse: ({ feature }) => send('DELETE', `${base}/${feature}/link/01ARZ3NDEKTSV4RRFFQ69G5FAV`),
    },
    ...([true, false] as const).flatMap((favorite): WriteCase[] => [
      {
        route: `${favorite ? 'POST' : 'DELETE'} /api/admin/projects/:projectId/features/:featureName/favorites`,
        run: async () => {
          lastBrowser = (await signedIn(t, server, 'Viewer')).browser
          const url = `${base}/${await feature('favourite')}/favorites`
          if (!favorite) await lastBrowser.json('POST', url)
          return asInject(await lastBrowser.json(favorite ? 'POST' : 'DELETE', url))
        },
        status: 200,
        event: favorite ? 'feature-favorited' : 'feature-unfavorited',
        // An API token is not a person.
        refuse: ({ feature }) => send(favorite ? 'POST' : 'DELETE', `${base}/${feature}/favorites`),
      },
      {
        route: `${favorite ? 'POST' : 'DELETE'} /api/admin/projects/:projectId/favorites`,
        run: async () => {
          lastBrowser = (await signedIn(t, server, 'Viewer')).browser
          if (!favorite) await lastBrowser.json('POST', '/api/admin/projects/default/favorites')
          return asInject(await lastBrowser.json(favorite ? 'POST' : 'DELETE', '/api/admin/projects/default/favorites'))
        },
        status: 200,
        event: favorite ? 'project-favorited' : 'project-unfavorited',
        refuse: async () => asInject(await lastBrowser.json(favorite ? 'POST' : 'DELETE', '/api/admin/projects/ghost/favorites')),
      },
    ]),
    {
      route: 'PUT /api/admin/projects/:projectId/tags',
      run: async () => send('PUT', '/api/admin/projects/default/tags', { features: [await feature('bulk-tags'), await feature('bulk-tags')], tags: { addedTags: [{ type: 'simple', value: uniqueName('bulk') }], removedTags: [] } }),
      status: 200,
      event: 'feature-tagged',
      refuse: ({ feature }) => send('PUT', '/api/admin/projects/default/tags', { features: [feature, 'ghost'], tags: { addedTags: [{ type: 'simple', value: uniqueName('bulk') }], removedTags: [] } }),
    },
    {
      route: 'POST /api/admin/user-admin/inactive/delete',
      run: async () => {
        const { id } = await createUser(t, 'Viewer')
        await sql`UPDATE users SET created_at = now() - interval '400 days', seen_at = NULL WHERE id = ${id}`.execute(t.database.db)
        return post('/api/admin/user-admin/inactive/delete', { ids: [id] })
      },
      status: 200,
      event: 'user-deleted',
      refuse: () => post('/api/admin/user-admin/inactive/delete', { ids: [999999] }),
    },
    {
      route: 'POST /api/admin/user-admin/reset-password',
      run: async () => post('/api/admin/user-admin/reset-password', { id: (await createUser(t, 'Viewer')).login }),
      status: 200,
      event: 'user-updated',
      refuse: () => post('/api/admin/user-admin/reset-password', { id: 'nobody-at-all' }),
    },
    {
      route: 'POST /auth/reset/password',
      run: async () => {
        const link = json(await post('/api/admin/user-admin/reset-password', { id: (await createUser(t, 'Viewer')).login })).resetPasswordUrl as string
        return post('/auth/reset/password', { token: new URL(link).searchParams.get('token'), password: 'another-password-9' })
      },
      status: 200,
      event: 'user-updated',
      refuse: () => post('/auth/reset/password', { token: 'x'.repeat(43), password: 'another-password-9' }),
    },
    {
      route: 'POST /api/admin/invite-link/tokens',
      run: () => post('/api/admin/invite-link/tokens', { name: uniqueName('invite'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() }),
      status: 201,
      event: 'public-signup-token-created',
      refuse: () => post('/api/admin/invite-link/tokens', { name: uniqueName('invite'), expiresAt: new Date(Date.now() - 1000).toISOString() }),
    },
    {
      route: 'PUT /api/admin/invite-link/tokens/:token',
      run: async () => {
        lastSignup = json(await post('/api/admin/invite-link/tokens', { name: uniqueName('invite'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).secret as string
        return t.app.inject({ method: 'PUT', url: `/api/admin/invite-link/tokens/${lastSignup}`, headers: auth(), payload: { enabled: false } })
      },
      status: 200,
      event: 'public-signup-token-updated',
      refuse: () => t.app.inject({ method: 'PUT', url: `/api/admin/invite-link/tokens/${lastSignup}`, headers: auth(), payload: {} }),
    },
    {
      route: 'POST /invite/:token/signup',
      run: async () => {
        lastSignup = json(await post('/api/admin/invite-link/tokens', { name: uniqueName('invite'), expiresAt: new Date(Date.now() + 3_600_000).toISOString() })).secret as string
        return post(`/invite/${lastSignup}/signup`, { email: `${uniqueName('signed')}@example.com`, name: 'Signed Up', password: 'another-password-9' })
      },
      status: 201,
      event: 'public-signup-token-user-added',
      refuse: () => post(`/invite/${lastSignup}/signup`, { email: `${uniqueName('weak')}@example.com`, name: 'Weak', password: 'password1234' }),
    },
    {
      // On and off again: the table's other rows must not meet maintenance mode.
      route: 'POST /api/admin/maintenance',
      run: async () => {
        await post('/api/admin/maintenance', { enabled: true })
        return post('/api/admin/maintenance', { enabled: false })
      },
      status: 204,
      event: 'setting-updated',
      refuse: () => post('/api/admin/maintenance', {}),
    },
    {
      // Any origin in the end, as before: the frontend rows need it.
      route: 'POST /api/admin/ui-config/cors',
      run: async () => {
        await post('/api/admin/ui-config/cors', { frontendApiOrigins: ['https://app.example.com'] })
        return post('/api/admin/ui-config/cors', { frontendApiOrigins: ['*'] })
      },
      status: 204,
      event: 'setting-updated',
      refuse: () => post('/api/admin/ui-config/cors', { frontendApiOrigins: ['https://app.example.com/path'] }),
    },
    {
      route: 'POST /api/admin/feedback',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        return asInject(await lastBrowser.json('POST', '/api/admin/feedback', { feedbackId: uniqueName('prompt') }))
      },
      status: 200,
      event: 'user-preference-updated',
      refuse: async () => asInject(await lastBrowser.json('POST', '/api/admin/feedback', { feedbackId: '' })),
    },
    {
      route: 'PUT /api/admin/feedback/:id',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        return asInject(await lastBrowser.json('PUT', `/api/admin/feedback/${uniqueName('prompt')}`, { neverShow: true }))
      },
      status: 200,
      event: 'user-preference-updated',
      refuse: async () => asInject(await lastBrowser.json('PUT', `/api/admin/feedback/${uniqueName('prompt')}`, { given: 'yesterday' })),
    },
    {
      route: 'POST /api/admin/splash/:id',
      run: async () => {
        lastBrowser = (await signedIn(t, server, 'Viewer')).browser
        return asInject(await lastBrowser.json('POST', `/api/admin/splash/${uniqueName('splash')}`))
      },
      status: 200,
      event: 'user-preference-updated',
      refuse: async () => asInject(await lastBrowser.json('POST', `/api/admin/splash/${'s'.repeat(101)}`)),
    },
    {
      route: 'PUT /api/admin/environments/sort-order',
      run: async () => {
        const name = uniqueName('env')
        await post('/api/admin/environments', { name, type: 'test' })
        return send('PUT', '/api/admin/environments/sort-order', { [name]: 999 })
      },
      status: 200,
      event: 'environment-updated',
      refuse: () => send('PUT', '/api/admin/environments/sort-order', { development: 1, nowhere: 2 }),
    },
    ...(['on', 'off'] as const).map((state): WriteCase => ({
      route: `POST /api/admin/environments/:name/${state}`,
      run: async () => {
        const name = uniqueName('env')
        await post('/api/admin/environments', { name, type: 'test' })
        if (state === 'on') await post(`/api/admin/environments/${name}/off`)
        return post(`/api/admin/environments/${name}/${state}`)
      },
      status: 204,
      event: 'environment-updated',
      refuse: () => post(`/api/admin/environments/nowhere/${state}`),
    })),
    {
      route: 'DELETE /api/admin/projects/:projectId/environments/:environment',
      run: async () => {
        const name = uniqueName('env')
        await post('/api/admin/environments', { name, type: 'test' })
        await post('/api/admin/projects/default/environments', { environment: name })
        return send('DELETE', `/api/admin/projects/default/environments/${name}`)
      },
      status: 200,
      event: 'project-environment-removed',
      refuse: () => send('DELETE', '/api/admin/projects/default/environments/nowhere'),
    },
    {
      route: 'POST /api/admin/projects/:projectId/environments/:environment/default-strategy',
      run: async () => {
        // A project of its own: the default would change what other cases' features get.
        const project = uniqueName('p')
        await post('/api/admin/projects', { id: project, name: 'P' })
        await post(`/api/admin/projects/${project}/environments`, { environment: 'development' })
        return post(`/api/admin/projects/${project}/environments/development/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '50' } })
      },
      status: 200,
      event: 'default-strategy-updated',
      refuse: () => post('/api/admin/projects/default/environments/development/default-strategy', { name: 'default' }),
    },
    {
      route: 'POST /api/admin/projects/:projectId/context',
      run: () => post('/api/admin/projects/default/context', { name: uniqueName('ctx') }),
      status: 201,
      event: 'context-field-created',
      refuse: () => post('/api/admin/projects/default/context', { name: 'appName' }),
    },
    ...(['PUT', 'DELETE'] as const).map((method): WriteCase => ({
      route: `${method} /api/admin/projects/:projectId/context/:contextField`,
      run: async () => {
        const name = uniqueName('ctx')
        await post('/api/admin/projects/default/context', { name })
        return send(method, `/api/admin/projects/default/context/${name}`, method === 'PUT' ? { stickiness: true } : undefined)
      },
      status: 200,
      event: method === 'PUT' ? 'context-field-updated' : 'context-field-deleted',
      // A root field is not the project's: 404, nothing changed.
      refuse: () => send(method, '/api/admin/projects/default/context/appName', method === 'PUT' ? {} : undefined),
    })),
    {
      route: 'POST /api/admin/projects/:projectId/context/:contextField/legal-values',
      run: async () => {
        const name = uniqueName('ctx')
        await post('/api/admin/projects/default/context', { name })
        return post(`/api/admin/projects/default/context/${name}/legal-values`, { value: 'gold' })
      },
      status: 200,
      event: 'context-field-updated',
      refuse: () => post('/api/admin/projects/default/context/ghost/legal-values', { value: 'x' }),
    },
    {
      route: 'DELETE /api/admin/projects/:projectId/context/:contextField/legal-values/:legalValue',
      run: async () => {
        const name = uniqueName('ctx')
        await post('/api/admin/projects/default/context', { name, legalValues: [{ value: 'gold' }] })
        return send('DELETE', `/api/admin/projects/default/context/${name}/legal-values/gold`)
      },
      status: 200,
      event: 'context-field-updated',
      refuse: () => send('DELETE', '/api/admin/projects/default/context/appName/legal-values/x'),
    },
    {
      // A first evaluation moves the lifecycle: that is a change readers see.
      route: 'POST /api/client/metrics',
      run: async () => flushed(post('/api/client/metrics', metricsBody({ [await feature('metrics')]: { yes: 1, no: 0 } }), await clientToken())),
      status: 202,
      event: 'feature-lifecycle-stage-entered',
      refuse: ({ feature, secret }) => post('/api/client/metrics', metricsBody({ [feature]: { yes: -1, no: 0 } }), secret),
    },
    {
      // A relay's (or Unleash Edge's) batch moves the lifecycle as the reports it carries would.
      route: 'POST /api/client/metrics/bulk',
      run: async () => flushed(post('/api/client/metrics/bulk', { applications: [], metrics: [{ featureName: await feature('bulk'), appName: 'relay-app', environment: 'development', yes: 1, no: 0 }] }, await clientToken())),
      status: 202,
      event: 'feature-lifecycle-stage-entered',
      refuse: ({ feature, secret }) => post('/api/client/metrics/bulk', { applications: [], metrics: [{ featureName: feature, appName: 'relay-app', environment: 'development', yes: -1 }] }, secret),
    },
  ]

  it('the table covers every documented write route (a new route must be added here)', async () => {
    const documented = (await documentedRoutes(t.app))
      .filter((r) => !['GET', 'HEAD'].includes(r.method))
      .map((r) => `${r.method} ${r.url}`)
    // Registration is usage data, and validating a segment name only reads: they change no
    // state readers see, and record no event.
    const usageOnly = [
      'POST /api/client/register',
      'POST /api/admin/segments/validate',
      'POST /api/admin/context/validate',
      'POST /api/admin/projects/:projectId/context/validate',
      'POST /api/admin/tag-types/validate',
      'POST /api/admin/constraints/validate',
      // An export and an import's validation only read.
      'POST /api/admin/features-batch/export',
      'POST /api/admin/features-batch/validate',
      // Checking a feature name, or what archiving would meet, only reads.
      'POST /api/admin/features/validate',
      'POST /api/admin/projects/:projectId/archive/validate',
      // Evaluations only read; a browser SDK's registration is validated and not stored (as Unleash).
      'POST /api/frontend',
      'POST /api/frontend/client/register',
      'POST /ofrep/v1/evaluate/flags/:key',
      'POST /ofrep/v1/evaluate/flags',
      // Which tokens are valid only reads; a request for tokens is always refused (no Enterprise Edge client is registered).
      'POST /edge/validate',
      'POST /edge/issue-token',
      'POST /api/admin/playground',
      'POST /api/admin/playground/advanced',
      // A change request's preview applies it in a transaction it rolls back: nothing is kept.
      'POST /api/admin/playground/change-request/:id',
      // Sessions and password checks are not changes readers see.
      'POST /auth/simple/login',
      'POST /logout',
      'POST /api/admin/user-admin/validate-password',
      'POST /auth/reset/validate-password',
      // Asking for a reset link by email sends nothing and stores nothing (no mail server).
      'POST /auth/reset/password-email',
      // No user is made by SCIM here: nothing to delete. The admin UI's error reports are logged only.
      'DELETE /api/admin/user-admin/scim-users',
      'POST /api/admin/record-ui-error',
    ]
    expect([...cases().map((c) => c.route), ...usageOnly].sort()).toEqual(documented.sort())
  })

  for (const c of cases()) {
    it(c.route, async () => {
      const secret = await clientToken()
      const newestEvent = async () =>
        (await t.database.db.selectFrom('events').select(['id', 'type']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow())
      const versionOf = async () => (await poll(secret)).headers.etag as string

      const before = { version: await versionOf(), event: await newestEvent() }
      const done = await c.run()
      expect(done.statusCode, done.body).toBe(c.status)
      const after = { version: await versionOf(), event: await newestEvent() }
      expect(after.event.type).toBe(c.event)
      expect(after.version).not.toBe(before.version)

      const target = { feature: await feature('refused'), secret, frontend: await frontendToken() }
      // Refusals of a strategy's PUT and PATCH need one to refuse a change to.
      await post(`${base}/${target.feature}/environments/development/strategies`, { name: 'flexibleRollout' })
      const stable = { version: await versionOf(), event: await newestEvent() }
      const refused = await flushed(c.refuse(target))
      expect(refused.statusCode, refused.body).toBeGreaterThanOrEqual(400)
      expect(refused.statusCode).toBeLessThan(500)
      expect(await newestEvent()).toEqual(stable.event)
      expect(await versionOf()).toBe(stable.version)
    })
  }
})

describe('the register route changes no state readers see', () => {
  it('records no event and leaves the client version alone', async () => {
    const secret = await clientToken()
    const before = (await poll(secret)).headers.etag
    const res = await t.app.inject({ method: 'POST', url: '/api/client/register', headers: auth(secret), payload: { appName: 'quiet', instanceId: 'i', strategies: [], started: new Date().toISOString(), interval: 1000 } })
    expect(res.statusCode).toBe(202)
    expect((await poll(secret)).headers.etag).toBe(before)
  })
})

describe('a method a path does not have', () => {
  it('is 405 with Allow whatever the token type (a client token on a client path too)', async () => {
    const secret = await clientToken()
    for (const [method, url, allow] of [
      ['POST', '/api/client/features', 'GET, HEAD'],
      ['DELETE', '/api/client/metrics', 'POST'],
      ['PUT', '/api/client/register', 'POST'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: auth(secret), payload: {} })
      expectProblem(res, 405, 'MethodNotAllowedError')
      expect(res.headers.allow).toBe(allow)
    }
    // Without a token it stays 401: the answer says nothing about which paths exist.
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/client/features' }), 401, 'AuthenticationRequired')
  })
})

/** How many sessions of `holder`'s database wait on a lock. */
async function lockWaiters (holder: pg.Client): Promise<number> {
  const { rows } = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
  return rows[0]!.n
}

/** Until another session of `holder`'s database waits on a lock (the request under test got that far), however busy the machine. */
async function waitingOnALock (holder: pg.Client) {
  await eventually(async () => (await lockWaiters(holder)) > 0, 'a request waiting on the held row lock')
}

describe('/ready', () => {
  it('is 200 while every connection is busy and the queue is full: busy is not unready', async () => {
    // The webhook dispatcher and the change request scheduler poll once a minute here: a poll would take the only connection.
    const busy = await buildTestApp({ DATABASE_POOL_SIZE: '1', DATABASE_QUEUE_LIMIT: '0', WEBHOOK_POLL_MS: '60000', CHANGE_REQUEST_POLL_MS: '60000' })
    const holder = new pg.Client({ connectionString: busy.databaseUrl })
    await holder.connect()
    try {
      const name = await createFeature(busy.app)
      await holder.query('BEGIN')
      await holder.query('SELECT 1 FROM features WHERE name = $1 FOR UPDATE', [name])
      // This PATCH takes the only connection and waits on the row lock. Should a background
      // job (usage, sessions, …) hold that connection at that moment, the PATCH is refused
      // at once (429, no queue): it is sent again until it waits on the lock.
      const patch = () => busy.app.inject({ method: 'PATCH', url: `/api/admin/projects/default/features/${name}/environments/development/variants`, headers: auth(), payload: [] })
      let waiting = patch()
      const refusedAtOnce: number[] = []
      await eventually(async () => {
        const answered = await Promise.race([waiting.then((res) => res.statusCode), sleep(20).then(() => undefined)])
        if (answered !== undefined) {
          refusedAtOnce.push(answered)
          waiting = patch()
          return false
        }
        return (await lockWaiters(holder)) > 0
      }, 'the PATCH waiting on the held row lock')
      expect(refusedAtOnce.every((status) => status === 429), `answered before the lock was released: ${refusedAtOnce}`).toBe(true)
      expectProblem(await busy.app.inject({ method: 'GET', url: '/api/admin/projects', headers: auth() }), 429, 'TooManyRequestsError')
      const ready = await busy.app.inject({ method: 'GET', url: '/ready' })
      expect(ready.statusCode).toBe(200)
      expect(json(ready)).toEqual({ health: 'GOOD' })
      await holder.query('COMMIT')
      expect((await waiting).statusCode).toBe(200)
    } finally {
      await holder.end()
      await busy.close()
    }
  })
})
