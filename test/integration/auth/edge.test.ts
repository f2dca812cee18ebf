/**
 * Unleash Edge's routes on the server: POST /edge/validate lists the valid tokens among those
 * sent, as Unleash does (with no token of its own); POST /edge/issue-token refuses every request
 * with the 401 of the first check it fails (no Enterprise Edge client is registered here).
 */
import { describe, expect, it } from 'vitest'
import { ADMIN_SECRET, expectProblem, json, uniqueName, useTestApp } from '../../helpers/app.js'
import { requests } from '../../helpers/requests.js'
import { databaseFingerprint } from '../../helpers/state.js'

const t = useTestApp()
const { clientToken, frontendToken, admin } = requests(t)

const validate = (tokens: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/edge/validate', payload: { tokens }, headers })

describe('POST /edge/validate', () => {
  it('lists the valid tokens with type, projects and environment; unknown and deleted ones are left out', async () => {
    const client = await clientToken('development', ['default'])
    const frontend = await frontendToken('production')
    const goneName = uniqueName('gone')
    const gone = await clientToken('development', undefined, goneName)
    expect((await admin.delete(`/api/admin/api-tokens/${goneName}`)).statusCode).toBe(200)
    const res = await validate([client, frontend, 'nope', gone, client, ADMIN_SECRET, ''])
    expect(res.statusCode).toBe(200)
    const tokens = json(res).tokens
    expect(tokens).toContainEqual({ token: client, type: 'client', projects: ['default'], environment: 'development' })
    expect(tokens).toContainEqual({ token: frontend, type: 'frontend', projects: ['*'], environment: 'production' })
    expect(tokens).toContainEqual({ token: ADMIN_SECRET, type: 'admin', projects: ['*'], environment: '*' })
    expect(tokens.map((x: any) => x.token)).not.toContain('nope')
    // Sent twice, listed once.
    expect(tokens.filter((x: any) => x.token === client)).toHaveLength(1)
  })

  it('needs no token, and an empty list is an empty answer', async () => {
    const res = await validate([])
    expect(res.statusCode).toBe(200)
    expect(json(res)).toEqual({ tokens: [] })
  })

  it('refuses what is not a list of at most 1,000 secrets (400) and changes nothing', async () => {
    const before = await databaseFingerprint(t.database.db)
    for (const tokens of ['one', [1], Array.from({ length: 1001 }, (_, i) => `t${i}`), ['x'.repeat(1001)]]) {
      expectProblem(await validate(tokens), 400, 'BadDataError')
    }
    expectProblem(await t.app.inject({ method: 'POST', url: '/edge/validate', payload: {} }), 400, 'BadDataError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})

describe('POST /edge/issue-token', () => {
  const issue = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/edge/issue-token', payload: { tokens: [{ environment: 'development', projects: ['*'] }] }, headers })

  it('is 401 naming the first check that fails, as Unleash; no token is made', async () => {
    const before = await databaseFingerprint(t.database.db)
    const signed = { authorization: 'HMAC edge-1:c2lnbmF0dXJl', 'x-nonce': 'n-1', 'content-sha256': 'abc' }
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Missing HMAC authorization header/],
      [{ authorization: ADMIN_SECRET }, /Missing HMAC authorization header/],
      [{ authorization: 'HMAC edge-1:c2lnbmF0dXJl' }, /Missing content headers/],
      [{ ...signed, 'x-timestamp': new Date(Date.now() - 10 * 60_000).toISOString() }, /Stale request/],
      [{ ...signed, 'x-timestamp': 'yesterday' }, /Stale request/],
      [{ ...signed, 'x-timestamp': new Date().toISOString() }, /Unknown client/],
    ]
    for (const [headers, message] of cases) {
      const body = expectProblem(await issue(headers), 401, 'UnauthorizedError')
      expect(body.detail).toMatch(message)
    }
    // The signature is checked before the body: a body that is not Unleash's is 401 too.
    const res = await t.app.inject({ method: 'POST', url: '/edge/issue-token', payload: { nonsense: true } })
    expectProblem(res, 401, 'UnauthorizedError')
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
