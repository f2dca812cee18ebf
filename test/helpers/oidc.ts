/**
 * Identity providers for the single sign-on tests, on loopback: oidc-provider (OpenID
 * Certified) configured per test, and a small forging provider (jose) that signs whatever ID
 * token a test asks for, to prove each refusal. A cookie-keeping browser drives them both.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as jose from 'jose'
import Provider, { type KoaContextWithOIDC } from 'oidc-provider'

export const CLIENT_ID = 'flags-admin'
export const CLIENT_SECRET = 'a-client-secret-for-tests-only-123'

/** A server on a loopback port whose handler is set once its address is known. */
async function listenLater () {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => { res.statusCode = 503; res.end() }
  const requests: string[] = []
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    requests,
    setHandler: (h: typeof handler) => { handler = h },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

export interface Account {
  email?: string
  email_verified?: boolean
  name?: string
  groups?: string[]
}

/**
 * oidc-provider on loopback with one confidential client. Accounts sign in with any password
 * through its development interactions; consent is given at once. Claims of the granted
 * scopes are put in the ID token (as Keycloak, Okta and Entra ID can be set up to).
 */
export async function startOidcProvider (options: { redirectUri: string; postLogoutRedirectUri: string; accounts: Map<string, Account>; pkceRequired?: boolean }) {
  const server = await listenLater()
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'provider-key-1', alg: 'RS256', use: 'sig' }
  const provider = new Provider(server.base, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [options.redirectUri],
      post_logout_redirect_uris: [options.postLogoutRedirectUri],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    conformIdTokenClaims: false,
    pkce: { required: () => options.pkceRequired === true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount (_ctx: unknown, id: string) {
      const account = options.accounts.get(id)
      if (!account) return undefined
      return { accountId: id, claims: async () => ({ sub: id, ...options.accounts.get(id) }) }
    },
    async loadExistingGrant (ctx: KoaContextWithOIDC) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId })
      grant.addOIDCScope(String(ctx.oidc.params.scope ?? 'openid'))
      await grant.save()
      return grant
    },
  })
  provider.on('server_error', (_ctx: unknown, error: unknown) => { console.error('oidc-provider server_error', error) })
  server.setHandler(provider.callback())
  return { ...server, issuer: server.base, discoverUrl: `${server.base}/.well-known/openid-configuration` }
}

export interface ForgedToken {
  /** Claims over the defaults (iss, sub, aud, exp, iat, nonce, email, email_verified); `undefined` removes one. */
  claims?: Record<string, unknown>
  /** The key to sign with (a key's kid): default the current one. */
  kid?: string
  /** The whole token, made from the claims: for tokens no key signs (alg none, HMAC). */
  raw?: (claims: Record<string, unknown>) => Promise<string> | string
}

interface SigningKey { kid: string; alg: string; privateKey: jose.CryptoKey; publicJwk: jose.JWK }

async function signingKey (kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/**
 * A provider that answers the code flow itself and signs the ID token a test describes: the
 * keys it publishes (`publish`) and signs with (`kid`) change at will, so that key rotation and
 * unknown keys can be shown; every JWKS fetch is counted. Codes are single-use.
 */
export async function startForgingProvider (options: { clientId?: string; clientSecret?: string } = {}) {
  const clientId = options.clientId ?? CLIENT_ID
  const clientSecret = options.clientSecret ?? CLIENT_SECRET
  const server = await listenLater()
  const keys = new Map<string, SigningKey>()
  const first = await signingKey('key-1')
  keys.set(first.kid, first)
  const state = {
    published: [first.kid],
    current: first.kid,
    next: {} as ForgedToken,
    jwksFetches: 0,
    /** What discovery answers, over the defaults. */
    metadata: {} as Record<string, unknown>,
    /** The authorization requests the provider got. */
    authorizations: [] as URLSearchParams[],
    /** The codes and ID tokens it issued, and the PKCE verifiers it was sent. */
    issued: [] as string[],
  }
  const codes = new Map<string, { nonce: string | null; challenge: string | null; used: boolean }>()
  const metadata = () => ({
    issuer: server.base,
    authorization_endpoint: `${server.base}/authorize`,
    token_endpoint: `${server.base}/token`,
    jwks_uri: `${server.base}/jwks`,
    end_session_endpoint: `${server.base}/logout`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256', 'RS384', 'ES256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    ...state.metadata,
  })
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  server.setHandler((req, res) => {
    const url = new URL(req.url!, server.base)
    if (url.pathname === '/.well-known/openid-configuration') return send(res, 200, metadata())
    if (url.pathname === '/jwks') {
      state.jwksFetches++
      return send(res, 200, { keys: state.published.map((kid) => keys.get(kid)!.publicJwk) })
    }
    if (url.pathname === '/authorize') {
      state.authorizations.push(url.searchParams)
      const code = randomBytes(16).toString('base64url')
      state.issued.push(code)
      codes.set(code, { nonce: url.searchParams.get('nonce'), challenge: url.searchParams.get('code_challenge'), used: false })
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      res.writeHead(302, { location: back.href })
      return res.end()
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = ''
      req.on('data', (chunk) => { body += chunk })
      req.on('end', () => {
        (async () => {
          const form = new URLSearchParams(body)
          const basic = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString()
          const [id, secret] = basic.split(':').map((s) => decodeURIComponent(s))
          if (id !== clientId || secret !== clientSecret) return send(res, 401, { error: 'invalid_client' })
          const grant = codes.get(form.get('code') ?? '')
          if (!grant || grant.used) return send(res, 400, { error: 'invalid_grant', error_description: 'code unknown or used' })
          grant.used = true
          if (grant.challenge !== null) {
            const verifier = form.get('code_verifier') ?? ''
            state.issued.push(verifier)
            if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return send(res, 400, { error: 'invalid_grant', error_description: 'PKCE' })
          }
          const now = Math.floor(Date.now() / 1000)
          const claims: Record<string, unknown> = { iss: server.base, sub: 'user-1', aud: clientId, exp: now + 300, iat: now, nonce: grant.nonce, email: 'ada@example.com', email_verified: true }
          for (const [name, value] of Object.entries(state.next.claims ?? {})) {
            if (value === undefined) delete claims[name]
            else claims[name] = value
          }
          const key = keys.get(state.next.kid ?? state.current)!
          const idToken = state.next.raw
            ? await state.next.raw(claims)
            : await new jose.SignJWT(claims as jose.JWTPayload).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey)
          const accessToken = randomBytes(16).toString('hex')
          state.issued.push(idToken, accessToken)
          send(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: idToken })
        })().catch((error) => send(res, 500, { error: 'server_error', error_description: String(error) }))
      })
      return
    }
    send(res, 404, { error: 'not_found' })
  })
  return {
    ...server,
    clientId,
    clientSecret,
    state,
    discoverUrl: `${server.base}/.well-known/openid-configuration`,
    /** Makes a new key; `publish` puts it in the JWKS, `use` signs with it from now on. */
    async addKey (kid: string, { publish = true, use = true, alg = 'RS256' } = {}) {
      const key = await signingKey(kid, alg)
      keys.set(kid, key)
      if (publish) state.published.push(kid)
      if (use) state.current = kid
      return key
    },
    publicJwk: (kid: string) => keys.get(kid)!.publicJwk,
    privateKey: (kid: string) => keys.get(kid)!.privateKey,
  }
}

/** A browser's cookies: kept per host (as browsers do, whatever the port), sent back, dropped when expired. */
export class CookieBrowser {
  readonly jar = new Map<string, Map<string, string>>()

  cookie (host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name)
  }

  setCookie (host: string, name: string, value: string | undefined) {
    const cookies = this.jar.get(host) ?? new Map<string, string>()
    if (value === undefined) cookies.delete(name)
    else cookies.set(name, value)
    this.jar.set(host, cookies)
  }

  /** One request, no redirect followed; the answer's cookies are kept. */
  async request (url: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const target = new URL(url)
    const cookies = [...(this.jar.get(target.hostname) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ')
    const res = await fetch(target, { redirect: 'manual', ...init, headers: { ...(cookies !== '' && { cookie: cookies }), ...init.headers } })
    for (const header of res.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';')
      const at = pair!.indexOf('=')
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()]
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a))
      this.setCookie(target.hostname, name, expired || value === '' ? undefined : value)
    }
    return res
  }

  /** Follows redirects (as a browser navigates) until `stop` says so or an answer is not a redirect. */
  async navigate (url: string, stop: (url: string) => boolean = () => false, headers: Record<string, string> = {}) {
    let current = url
    for (let hop = 0; hop < 20; hop++) {
      const res = await this.request(current, { headers })
      const location = res.headers.get('location')
      if (res.status < 300 || res.status >= 400 || location === null) return { res, url: current }
      await res.arrayBuffer()
      current = new URL(location, current).href
      if (stop(current)) return { res, url: current }
    }
    throw new Error(`too many redirects from ${url}`)
  }
}

/**
 * Signs in at oidc-provider as `account` (its development login form, any password), from
 * the app's /auth/oidc/login up to the provider's redirect back: returns the callback URL, not
 * yet visited.
 */
export async function toCallback (browser: CookieBrowser, appBase: string, account: string, redirect?: string) {
  const start = `${appBase}/auth/oidc/login${redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`}`
  const isCallback = (url: string) => url.startsWith(`${appBase}/auth/oidc/callback`)
  const atLogin = await browser.navigate(start, (url) => url.includes('/interaction/') || isCallback(url))
  if (isCallback(atLogin.url)) return atLogin.url
  if (!atLogin.url.includes('/interaction/')) throw new Error(`expected the provider's login, got ${atLogin.res.status} at ${atLogin.url}: ${await atLogin.res.text()}`)
  const submitted = await browser.request(atLogin.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prompt: 'login', login: account, password: 'any' }).toString(),
  })
  await submitted.arrayBuffer()
  const back = await browser.navigate(new URL(submitted.headers.get('location')!, atLogin.url).href, isCallback)
  if (!isCallback(back.url)) throw new Error(`expected the callback, got ${back.res.status} at ${back.url}: ${await back.res.text()}`)
  return back.url
}
