/**
 * Serving the built admin UI (src/ui): its addresses answer with the page and its security
 * headers, hashed assets are cached for good and sent compressed when the client accepts it,
 * and every other path, the API's above all, answers exactly as it does without the UI.
 * A small build of its own stands in for `build.mjs`'s output (the e2e tests use the real one).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, buildTestApp, expectProblem, type TestApp } from '../../helpers/app.js'

const dir = mkdtempSync(join(tmpdir(), 'ui-'))
const PAGE = '<!doctype html><html lang="en"><head><title>Feature flags</title><script type="module" src="/assets/app-ABCDEFGH.js"></script></head><body><div id="root"></div></body></html>'
const SCRIPT = 'console.log("app");'.repeat(50)
mkdirSync(join(dir, 'assets'))
writeFileSync(join(dir, 'index.html'), PAGE)
writeFileSync(join(dir, 'assets', 'app-ABCDEFGH.js'), SCRIPT)
writeFileSync(join(dir, 'assets', 'app-ABCDEFGH.js.br'), brotliCompressSync(SCRIPT))
writeFileSync(join(dir, 'assets', 'app-ABCDEFGH.js.gz'), gzipSync(SCRIPT))
writeFileSync(join(dir, 'assets', 'app-ABCDEFGH.css'), 'body{color:#000}')
writeFileSync(join(dir, 'assets', 'icon-12345678.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')

let t: TestApp
let bare: TestApp

beforeAll(async () => {
  t = await buildTestApp({}, { uiDir: dir })
  // The same app without a UI build: what every other path must keep answering.
  bare = await buildTestApp({}, { uiDir: join(dir, 'missing') })
})

afterAll(async () => {
  await t?.close()
  await bare?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the admin UI', () => {
  it.each(['/', '/login', '/signed-out', '/single-sign-on', '/groups', '/projects', '/projects/default', '/projects/default/features/f-1/history', '/segments', '/webhooks/7', '/profile'])(
    'answers %s with the page, its Content-Security-Policy and no caching of the page', async (url) => {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(200)
      expect(res.body).toBe(PAGE)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['cache-control']).toBe('no-cache')
      const csp = String(res.headers['content-security-policy'])
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).not.toContain('unsafe-inline')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-frame-options']).toBe('DENY')
    })

  it('lets forms go only back here, and to the identity provider\'s sign-out while single sign-out is on (the logout form is redirected there)', async () => {
    const formAction = (res: { headers: Record<string, unknown> }) => String(res.headers['content-security-policy']).split('; ').find((d) => d.startsWith('form-action'))
    expect(formAction(await t.app.inject({ method: 'GET', url: '/' }))).toBe("form-action 'self'")
    const oidc = { OIDC_ENABLED: 'true', OIDC_DISCOVER_URL: 'https://idp.example.com/realms/x/.well-known/openid-configuration', OIDC_CLIENT_ID: 'flags', OIDC_CLIENT_SECRET: 'a-secret-for-the-test' }
    const signingOut = await buildTestApp({ ...oidc, OIDC_ENABLE_SINGLE_SIGN_OUT: 'true' }, { uiDir: dir })
    const localOnly = await buildTestApp({ ...oidc, OIDC_ENABLE_SINGLE_SIGN_OUT: 'false' }, { uiDir: dir })
    try {
      expect(formAction(await signingOut.app.inject({ method: 'GET', url: '/profile' }))).toBe("form-action 'self' https://idp.example.com")
      expect(formAction(await localOnly.app.inject({ method: 'GET', url: '/profile' }))).toBe("form-action 'self'")
    } finally {
      await signingOut.close()
      await localOnly.close()
    }
  })

  it('needs no token, and answers HEAD and a revalidation with its ETag (304)', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/projects' })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    const etag = String(head.headers.etag)
    const again = await t.app.inject({ method: 'GET', url: '/projects', headers: { 'if-none-match': etag } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
  })

  it('revalidates as every conditional read does: a weak tag (a compressing proxy\'s) or a list holding it is 304, with Vary', async () => {
    const { etag } = (await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js' })).headers
    for (const ifNoneMatch of [`W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js', headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'br' } })
      expect(res.statusCode, ifNoneMatch).toBe(304)
      expect(res.body).toBe('')
      expect(res.headers.etag).toBe(etag)
      expect(res.headers.vary).toBe('accept-encoding')
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(res.headers['content-encoding']).toBeUndefined()
    }
    const changed = await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js', headers: { 'if-none-match': '"other"' } })
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toBe(SCRIPT)
  })

  it('serves hashed assets with their content type, cached for a year, brotli or gzip when accepted', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js' })
    expect(plain.statusCode).toBe(200)
    expect(plain.body).toBe(SCRIPT)
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.vary).toBe('accept-encoding')
    const br = await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js', headers: { 'accept-encoding': 'gzip, deflate, br' } })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.rawPayload.length).toBeLessThan(SCRIPT.length)
    const gz = await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.js', headers: { 'accept-encoding': 'gzip' } })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect((await t.app.inject({ method: 'GET', url: '/assets/app-ABCDEFGH.css' })).headers['content-type']).toBe('text/css; charset=utf-8')
    expect((await t.app.inject({ method: 'GET', url: '/assets/icon-12345678.svg' })).headers['content-type']).toBe('image/svg+xml')
  })

  it('answers a missing asset 404 with a problem body, and reads nothing outside its folder', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/assets/app-00000000.js' }), 404, 'NotFoundError')
    for (const url of ['/assets/../index.html', '/assets/%2e%2e/index.html', '/assets/..%2f..%2fpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.body).not.toContain('"name": "feature-flag-admin-api"')
      expect([200, 400, 401, 404]).toContain(res.statusCode)
      if (res.statusCode === 200) expect(res.body).toBe(PAGE)
    }
  })

  it('leaves every other path as it is without the UI: the API, its 404s and 405s, the docs', async () => {
    for (const [method, url, headers] of [
      ['GET', '/api/admin/nope', auth()],
      ['GET', '/api/admin/nope', {}],
      ['POST', '/api/admin/projects/default/features/x/environments/development/on', {}],
      ['DELETE', '/api/admin/projects', auth()],
      ['GET', '/api', auth()],
      ['GET', '/nothing-here', {}],
      ['POST', '/projects', {}],
      ['GET', '/health', {}],
    ] as const) {
      const withUi = await t.app.inject({ method, url, headers })
      const without = await bare.app.inject({ method, url, headers })
      expect({ url, method, status: withUi.statusCode, type: withUi.headers['content-type'] }).toEqual({ url, method, status: without.statusCode, type: without.headers['content-type'] })
    }
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200)
  })

  it('is not in the OpenAPI document', async () => {
    const paths = Object.keys(JSON.parse((await t.app.inject({ method: 'GET', url: '/docs/json' })).body).paths)
    expect(paths.filter((p) => p === '/' || p.startsWith('/projects') || p.startsWith('/assets'))).toEqual([])
  })
})
