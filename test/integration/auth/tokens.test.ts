/**
 * API tokens by secret, as Unleash's clients address them: `/api/admin/api-tokens/{token}` takes
 * the secret (and a name only where the two cannot be confused); expiry stored, changed and
 * enforced wherever a token authenticates; project API tokens; Terraform's own calls, as its
 * generated Go client sends them; never a secret in an answer but the creation's, nor in a log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App } from '../../../src/app.js'
import { auth, buildLoggedApp, createToken, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { listen, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

// A long cache: an expiry must be enforced on a token the cache still holds.
const t = useTestApp({ TOKEN_CACHE_MS: '60000' })
const { admin, as, send } = requests(t)

/** How Go's url.PathEscape writes a path segment (the generated client of both Terraform providers): `*`, `[` and `]` escaped, `:` kept. */
const goPathEscape = (value: string) =>
  [...value].map((c) => (/[A-Za-z0-9\-_.~$&+:=@]/.test(c) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)).join('')

/** Makes a token; its name and secret. */
async function token (body: Record<string, unknown> = {}) {
  const tokenName = uniqueName('tok')
  const res = await admin.post('/api/admin/api-tokens', { tokenName, ...body })
  expect(res.statusCode, res.body).toBe(201)
  return { tokenName, secret: json(res).secret as string, created: json(res) }
}

const tokenEvents = async (type: string) =>
  json(await admin.get(`/api/admin/events?type=${type}&limit=500`)).events as { data: { tokenName: string }, preData?: { expiresAt: string | null } }[]

const usable = async (secret: string) => (await as(secret).get('/api/admin/projects')).statusCode

describe('the secret names the token', () => {
  it("creates secrets in Unleash's form and answers Unleash's token shape (never the secret but at creation)", async () => {
    const all = await token()
    expect(all.secret).toMatch(/^\*:\*\.[0-9a-f]{48}$/)
    const client = await token({ type: 'client', environment: 'development', projects: ['default'] })
    expect(client.secret).toMatch(/^default:development\.[0-9a-f]{48}$/)
    expect(client.created).toEqual({
      tokenName: client.tokenName,
      type: 'client',
      environment: 'development',
      project: 'default',
      projects: ['default'],
      expiresAt: null,
      createdAt: expect.any(String),
      secret: client.secret,
    })
    const several = await token({ environments: ['development', 'production'], projects: ['default', 'other'] })
    expect(several.secret).toMatch(/^\[\]:\[\]\./)
    expect(several.created).toMatchObject({ environment: 'development,production', project: 'default,other' })
    // backend is Unleash 8's name of a client token; project instead of projects.
    const backend = await token({ type: 'backend', environment: 'production', project: 'default' })
    expect(backend.created).toMatchObject({ type: 'client', projects: ['default'], environment: 'production' })
    const list = await admin.get('/api/admin/api-tokens')
    for (const made of [all, client, several, backend]) expect(list.body).not.toContain(made.secret)
  })

  it('reads the tokens of a name: a list, empty for an unknown name and for a secret', async () => {
    const { tokenName, secret } = await token({ type: 'frontend', environment: 'development' })
    const found = await admin.get(`/api/admin/api-tokens/${tokenName}`)
    expect(found.statusCode).toBe(200)
    expect(json(found)).toEqual({ tokens: [expect.objectContaining({ tokenName, type: 'frontend', environment: 'development', project: '*' })] })
    expect(json(await admin.get('/api/admin/api-tokens/never-was'))).toEqual({ tokens: [] })
    expect(json(await admin.get(`/api/admin/api-tokens/${encodeURIComponent(secret)}`))).toEqual({ tokens: [] })
  })

  it('deletes by secret; a secret that names no token changes nothing and is no error, as Unleash', async () => {
    const { tokenName, secret } = await token({ type: 'client', environment: 'development' })
    const before = await databaseFingerprint(t.database.db)
    const unknown = await admin.delete(`/api/admin/api-tokens/${encodeURIComponent('*:development.0123456789abcdef')}`)
    expect(unknown.statusCode).toBe(200)
    expect(unknown.body).toBe('')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    const deleted = await admin.delete(`/api/admin/api-tokens/${encodeURIComponent(secret)}`)
    expect(deleted.statusCode).toBe(200)
    expect((await tokenEvents('api-token-deleted')).find((e) => e.data.tokenName === tokenName)).toBeDefined()
    expect(json(await admin.get(`/api/admin/api-tokens/${tokenName}`))).toEqual({ tokens: [] })
    expectProblem(await as(secret).get('/api/client/features'), 401, 'UnauthorizedError')
  })

  it('still deletes by name, where a name cannot be a secret; an unknown name is 404 naming it', async () => {
    const { tokenName, secret } = await token()
    expect((await admin.delete(`/api/admin/api-tokens/${tokenName}`)).statusCode).toBe(200)
    expectProblem(await as(secret).get('/api/admin/projects'), 401, 'UnauthorizedError')
    const before = await databaseFingerprint(t.database.db)
    const missing = await admin.delete('/api/admin/api-tokens/never-was')
    expectProblem(missing, 404, 'NotFoundError')
    expect(json(missing).detail).toBe('API token never-was does not exist')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // A name never has a secret's form: no ":" (the name pattern), not the older ffa_ prefix.
    for (const tokenName of ['ffa_abc', 'a:b']) {
      const refused = await admin.post('/api/admin/api-tokens', { tokenName })
      expectProblem(refused, 400, 'BadDataError')
      expect(json(refused).details[0].path).toBe('/body/tokenName')
    }
  })

  it('deletes the older ffa_ admin secrets by secret too', async () => {
    const old = `ffa_${uniqueName('old')}`
    const name = uniqueName('old-token')
    // As a token made before secrets took Unleash's form: stored by its hash only.
    const { hashSecret } = await import('../../../src/auth/tokens.js')
    await t.database.db.insertInto('api_tokens').values({ name, secret_hash: hashSecret(old), projects: '["*"]', environments: '["*"]' }).execute()
    expect(await usable(old)).toBe(200)
    expect((await admin.delete(`/api/admin/api-tokens/${old}`)).statusCode).toBe(200)
    expectProblem(await as(old).get('/api/admin/projects'), 401, 'UnauthorizedError')
  })
})

describe('expiry', () => {
  it('is kept from the creation, and a token past it is refused, cached or not', async () => {
    const { tokenName, secret, created } = await token({ expiresAt: new Date(Date.now() + 1500).toISOString() })
    expect(created.expiresAt).toEqual(expect.any(String))
    expect(await usable(secret)).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1600))
    // The cache (TOKEN_CACHE_MS 60 s here) still holds it: the expiry is checked on every request.
    const refused = await as(secret).get('/api/admin/projects')
    expectProblem(refused, 401, 'UnauthorizedError')
    expect(json(refused).detail).toBe('The API token is unknown, expired or was deleted')
    expect(json(await admin.get(`/api/admin/api-tokens/${tokenName}`)).tokens[0].expiresAt).toBe(created.expiresAt)
    const past = await token({ type: 'client', environment: 'development', expiresAt: '2020-01-01T00:00:00Z' })
    expectProblem(await as(past.secret).get('/api/client/features'), 401, 'UnauthorizedError')
  })

  it('changes by secret (api-token-updated with before and after), at once for a cached token; the same expiry again records nothing', async () => {
    const { tokenName, secret } = await token({ type: 'client', environment: 'development' })
    expect((await as(secret).get('/api/client/features')).statusCode).toBe(200)
    const later = '2099-01-01T00:00:00.000Z'
    const path = `/api/admin/api-tokens/${encodeURIComponent(secret)}`
    expect((await admin.put(path, { expiresAt: later })).statusCode).toBe(200)
    const updated = (await tokenEvents('api-token-updated')).filter((e) => e.data.tokenName === tokenName)
    expect(updated).toEqual([expect.objectContaining({ data: expect.objectContaining({ expiresAt: later }), preData: expect.objectContaining({ expiresAt: null }) })])
    const before = await databaseFingerprint(t.database.db)
    expect((await admin.put(path, { expiresAt: '2099-01-01T00:00:00Z' })).statusCode).toBe(200)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect((await as(secret).get('/api/client/features')).statusCode).toBe(200)
    // Into the past: refused from the next request, though the cache held it.
    expect((await admin.put(path, { expiresAt: '2001-01-01T00:00:00Z' })).statusCode).toBe(200)
    expectProblem(await as(secret).get('/api/client/features'), 401, 'UnauthorizedError')
    // By name too.
    expect((await admin.put(`/api/admin/api-tokens/${tokenName}`, { expiresAt: later })).statusCode).toBe(200)
    expect((await as(secret).get('/api/client/features')).statusCode).toBe(200)
  })

  it('refuses a body without expiresAt, or not a date-time, and changes nothing; a secret of no token is 200 and nothing', async () => {
    const { secret } = await token()
    const path = `/api/admin/api-tokens/${encodeURIComponent(secret)}`
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await admin.put(path, {}), 400, 'BadDataError')
    expectProblem(await admin.put(path, { expiresAt: 'tomorrow' }), 400, 'BadDataError')
    expectProblem(await admin.put(path, { expiresAt: '2099-01-01T00:00:00Z', tokenName: 'x' }), 400, 'BadDataError')
    expect((await admin.put(`/api/admin/api-tokens/${encodeURIComponent('*:*.nothing')}`, { expiresAt: '2099-01-01T00:00:00Z' })).statusCode).toBe(200)
    expectProblem(await admin.put('/api/admin/api-tokens/never-was', { expiresAt: '2099-01-01T00:00:00Z' }), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('Terraform', () => {
  // The calls of unleash_api_token (Unleash/terraform-provider-unleash, and the philips-labs
  // provider through the same generated client): create with an expiry, update the expiry by
  // the secret in the path, delete by the secret in the path; each answered 200 or 201 exactly.
  const goHeaders = { 'user-agent': 'OpenAPI-Generator/1.0.0/go', accept: 'application/json' }

  it('Terraform: creates a token, changes its expiry and deletes it by the secret', async () => {
    const tokenName = uniqueName('terraform')
    const create = await admin.post('/api/admin/api-tokens', { type: 'client', tokenName, environment: 'development', projects: ['default'], expiresAt: '2030-01-01T00:00:00Z' }, goHeaders)
    expect(create.statusCode).toBe(201)
    const created = json(create)
    expect(created).toMatchObject({ tokenName, type: 'client', environment: 'development', project: 'default', projects: ['default'] })
    expect(new Date(created.expiresAt).toISOString()).toBe('2030-01-01T00:00:00.000Z')
    const path = `/api/admin/api-tokens/${goPathEscape(created.secret)}`
    const update = await admin.put(path, { expiresAt: '2031-06-30T12:00:00Z' }, { ...goHeaders, 'content-type': 'application/json' })
    expect(update.statusCode).toBe(200)
    const listed = json(await admin.get('/api/admin/api-tokens', goHeaders)).tokens.find((x: { tokenName: string }) => x.tokenName === tokenName)
    expect(new Date(listed.expiresAt).toISOString()).toBe('2031-06-30T12:00:00.000Z')
    const remove = await admin.delete(path, undefined, goHeaders)
    expect(remove.statusCode).toBe(200)
    expectProblem(await as(created.secret).get('/api/client/features'), 401, 'UnauthorizedError')
    // terraform destroy again (the token gone meanwhile): 200, as Unleash.
    expect((await admin.delete(path, undefined, goHeaders)).statusCode).toBe(200)
  })

  it('Terraform: an admin token for everything, its secret escaped by Go (*:* becomes %2A:%2A)', async () => {
    const { secret } = await token()
    expect(goPathEscape(secret)).toMatch(/^%2A:%2A\./)
    expect((await admin.put(`/api/admin/api-tokens/${goPathEscape(secret)}`, { expiresAt: '2001-01-01T00:00:00Z' }, goHeaders)).statusCode).toBe(200)
    expectProblem(await as(secret).get('/api/admin/projects'), 401, 'UnauthorizedError')
    expect((await admin.delete(`/api/admin/api-tokens/${goPathEscape(secret)}`, undefined, goHeaders)).statusCode).toBe(200)
  })
})

describe('project API tokens', () => {
  let base = ''
  beforeAll(async () => {
    base = await listen(t)
    await admin.post('/api/admin/projects', { id: 'tokens-a', name: 'A' })
    await admin.post('/api/admin/projects', { id: 'tokens-b', name: 'B' })
  })

  it("creates, lists and deletes a project's tokens (api-token-created and -deleted with the project)", async () => {
    const tokenName = uniqueName('proj')
    const created = await admin.post('/api/admin/projects/tokens-a/api-tokens', { tokenName, type: 'frontend', environment: 'development' })
    expect(created.statusCode).toBe(201)
    expect(json(created)).toMatchObject({ tokenName, type: 'frontend', projects: ['tokens-a'], project: 'tokens-a', environment: 'development' })
    const secret = json(created).secret as string
    expect(secret).toMatch(/^tokens-a:development\./)
    expect((await as(secret).post('/api/frontend', { context: {} })).statusCode).toBe(200)
    const events = json(await admin.get('/api/admin/events?type=api-token-created&project=tokens-a')).events
    expect(events[0]).toMatchObject({ project: 'tokens-a', data: { tokenName } })

    const everything = await token({ type: 'client', environment: 'development' })
    const list = json(await admin.get('/api/admin/projects/tokens-a/api-tokens')).tokens.map((x: { tokenName: string }) => x.tokenName)
    expect(list).toContain(tokenName)
    expect(list).not.toContain(everything.tokenName)

    const deleted = await admin.delete(`/api/admin/projects/tokens-a/api-tokens/${encodeURIComponent(secret)}`)
    expect(deleted.statusCode).toBe(200)
    expect(json(await admin.get('/api/admin/events?type=api-token-deleted&project=tokens-a')).events[0]).toMatchObject({ data: { tokenName } })
    expectProblem(await as(secret).post('/api/frontend', { context: {} }), 401, 'UnauthorizedError')
  })

  it('refuses what Unleash refuses, and what it should, changing nothing', async () => {
    const several = await token({ type: 'client', environment: 'development', projects: ['tokens-a', 'tokens-b'] })
    const ofB = await admin.post('/api/admin/projects/tokens-b/api-tokens', { tokenName: uniqueName('b'), type: 'client', environment: 'development' })
    const before = await databaseFingerprint(t.database.db)
    expectProblem(await admin.get('/api/admin/projects/no-such/api-tokens'), 404, 'NotFoundError')
    expectProblem(await admin.post('/api/admin/projects/no-such/api-tokens', { tokenName: uniqueName('x'), type: 'client', environment: 'development' }), 404, 'NotFoundError')
    const noEnvironment = await admin.post('/api/admin/projects/tokens-a/api-tokens', { tokenName: uniqueName('x'), type: 'client', environment: 'nowhere' })
    expectProblem(noEnvironment, 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/projects/tokens-a/api-tokens', { tokenName: uniqueName('x'), type: 'admin', environment: 'development' }), 400, 'BadDataError')
    expectProblem(await admin.post('/api/admin/projects/tokens-a/api-tokens', { tokenName: several.tokenName, type: 'client', environment: 'development' }), 409, 'NameExistsError')
    // Of two projects: 400; of another project, or no token: 404 (never echoing a secret).
    expectProblem(await admin.delete(`/api/admin/projects/tokens-a/api-tokens/${encodeURIComponent(several.secret)}`), 400, 'BadDataError')
    const foreign = await admin.delete(`/api/admin/projects/tokens-a/api-tokens/${encodeURIComponent(json(ofB).secret)}`)
    expectProblem(foreign, 404, 'NotFoundError')
    expect(foreign.body).not.toContain(json(ofB).secret)
    expect(json(foreign).detail).toBe('No API token of project tokens-a has this secret')
    expectProblem(await admin.delete('/api/admin/projects/tokens-a/api-tokens/never-was'), 404, 'NotFoundError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })

  it("lets a project's Member manage its client and frontend tokens, in that project only", async () => {
    const member = await signedIn(t, base, 'Viewer')
    expect((await admin.put(`/api/admin/projects/tokens-a/users/${member.id}/roles`, { roles: [5] })).statusCode).toBe(200)
    const made = await member.browser.json('POST', '/api/admin/projects/tokens-a/api-tokens', { tokenName: uniqueName('m'), type: 'client', environment: 'development' })
    expect(made.status).toBe(201)
    const { secret, tokenName } = await made.json() as { secret: string, tokenName: string }
    expect((await member.browser.json('GET', '/api/admin/projects/tokens-a/api-tokens')).status).toBe(200)
    expect((await member.browser.json('POST', '/api/admin/projects/tokens-b/api-tokens', { tokenName: uniqueName('m'), type: 'client', environment: 'development' })).status).toBe(403)
    // Not the admin API's token routes, nor an admin token scoped to its project.
    expect((await member.browser.json('GET', '/api/admin/api-tokens')).status).toBe(403)
    await admin.post('/api/admin/api-tokens', { tokenName: uniqueName('adm'), projects: ['tokens-a'] })
    const seen = await (await member.browser.json('GET', '/api/admin/projects/tokens-a/api-tokens')).json() as { tokens: { type: string }[] }
    expect(seen.tokens.map((x) => x.type)).not.toContain('admin')
    expect((await member.browser.json('DELETE', `/api/admin/projects/tokens-a/api-tokens/${encodeURIComponent(secret)}`)).status).toBe(200)
    expect(json(await admin.get(`/api/admin/api-tokens/${tokenName}`))).toEqual({ tokens: [] })
  })

  it('an Editor reads the client and frontend tokens, as Unleash; only an Admin the admin ones', async () => {
    const editor = await signedIn(t, base, 'Editor')
    const adminToken = await token()
    const list = await (await editor.browser.json('GET', '/api/admin/api-tokens')).json() as { tokens: { tokenName: string, type: string }[] }
    expect(list.tokens.length).toBeGreaterThan(0)
    expect(list.tokens.every((x) => x.type !== 'admin')).toBe(true)
    expect((await (await editor.browser.json('GET', `/api/admin/api-tokens/${adminToken.tokenName}`)).json())).toEqual({ tokens: [] })
    expect((await editor.browser.json('DELETE', `/api/admin/api-tokens/${adminToken.tokenName}`)).status).toBe(403)
  })

  it('a token scoped to a project and an environment makes tokens there only', async () => {
    const scoped = await createToken(t.app, { projects: ['tokens-a'], environments: ['development'] })
    expect((await send('POST', '/api/admin/projects/tokens-a/api-tokens', { tokenName: uniqueName('s'), type: 'client', environment: 'development' }, scoped)).statusCode).toBe(201)
    expectProblem(await send('POST', '/api/admin/projects/tokens-a/api-tokens', { tokenName: uniqueName('s'), type: 'client', environment: 'production' }, scoped), 403, 'PermissionError')
    expectProblem(await send('POST', '/api/admin/projects/tokens-b/api-tokens', { tokenName: uniqueName('s'), type: 'client', environment: 'development' }, scoped), 403, 'PermissionError')
  })
})

describe('the log', () => {
  let logged: Awaited<ReturnType<typeof buildLoggedApp>>
  let app: App

  beforeAll(async () => {
    logged = await buildLoggedApp()
    app = logged.app
  })
  afterAll(() => logged?.close())

  it('never holds a secret sent in a path, whatever the method or the answer', async () => {
    const made = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: 'logged', type: 'client', environment: 'development', projects: ['default'] } })
    const secret = json(made).secret as string
    const project = await app.inject({ method: 'POST', url: '/api/admin/projects/default/api-tokens', headers: auth(), payload: { tokenName: 'logged-p', type: 'client', environment: 'development' } })
    const projectSecret = json(project).secret as string
    const paths = [`/api/admin/api-tokens/${encodeURIComponent(secret)}`, `/api/admin/api-tokens/${goPathEscape(secret)}`]
    for (const path of paths) {
      for (const method of ['GET', 'PUT', 'POST', 'PATCH'] as const) {
        await app.inject({ method, url: `${path}?x=1`, headers: auth(), payload: method === 'PUT' ? { expiresAt: '2099-01-01T00:00:00Z' } : method === 'GET' ? undefined : {} })
      }
    }
    await app.inject({ method: 'DELETE', url: paths[0]!, headers: auth() })
    await app.inject({ method: 'DELETE', url: `/api/admin/projects/default/api-tokens/${encodeURIComponent(projectSecret)}`, headers: auth() })
    await app.inject({ method: 'DELETE', url: `/api/admin/projects/default/api-tokens/${encodeURIComponent(projectSecret)}`, headers: auth() })
    const log = logged.log()
    const random = (s: string) => s.slice(s.indexOf('.') + 1)
    for (const s of [secret, projectSecret]) {
      expect(log).not.toContain(random(s))
      expect(log).not.toContain(encodeURIComponent(s))
    }
    expect(log).toContain('/api/admin/api-tokens/[redacted]?x=1')
    expect(log).toContain('/api/admin/projects/default/api-tokens/[redacted]')
  })
})
