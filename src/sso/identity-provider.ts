/**
 * The identity provider as openid-client sees it: its discovery document, fetched with bounds
 * and checked (each problem named), and the client configuration built from it, cached and
 * refreshed. openid-client (an OpenID Certified relying party) does the protocol: the
 * authorization URL, the code exchange, `iss`, `aud`, `azp` (with several audiences), `exp`,
 * `nonce`, the one algorithm allowed, and, once asked to (enableNonRepudiationChecks), the ID
 * token's signature from the provider's JWKS (cached five minutes, fetched again when a token
 * names a key it has not seen, at most once a minute).
 */
import { createHash } from 'node:crypto'
import * as client from 'openid-client'
import { ApiError } from '../errors.js'
import type { OidcSettings } from './oidc-settings.js'

/** How long one request to the provider may take, and how much it may answer. */
const TIMEOUT_MS = 5000
const MAX_RESPONSE_BYTES = 1024 * 1024
/** How long a discovery document is used before it is fetched again. */
const DISCOVERY_TTL_MS = 3_600_000
/** Clock skew allowed on the ID token's exp and iat, in seconds. */
export const CLOCK_TOLERANCE_S = 30

/** A discovery document that cannot be used: why, in a sentence naming the problem. */
export class DiscoveryProblem extends Error {
  override name = 'DiscoveryProblem'
}

/** A fetch that gives up after TIMEOUT_MS, follows no redirect and reads at most MAX_RESPONSE_BYTES. */
export const boundedFetch: client.CustomFetch = async (url, options) => {
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS)
  const response = await fetch(url, { ...options, redirect: 'manual', signal } as RequestInit)
  const body = await readAtMost(response, MAX_RESPONSE_BYTES)
  return new Response(response.status === 204 || response.status === 304 ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

async function readAtMost (response: Response, limit: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array()
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw new DiscoveryProblem(`answered more than ${limit} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

const ENDPOINTS = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'end_session_endpoint'] as const
const REQUIRED = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const

/**
 * Fetches and checks a discovery document: it answers in time with 200 and JSON, lists the
 * endpoints a login needs, all on the discovery URL's own scheme, and supports what the
 * settings ask (the code flow, the ID token algorithm, PKCE S256, single sign-out).
 */
export async function discover (settings: Pick<OidcSettings, 'discoverUrl' | 'idTokenSigningAlgorithm' | 'enablePkce' | 'enableSingleSignOut' | 'secret'>): Promise<client.ServerMetadata> {
  const url = new URL(settings.discoverUrl)
  let response: Response
  try {
    response = await boundedFetch(url.href, { method: 'GET', headers: { accept: 'application/json' }, body: undefined, redirect: 'manual' })
  } catch (error) {
    if (error instanceof DiscoveryProblem) throw error
    const timedOut = error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')
    throw new DiscoveryProblem(timedOut ? `did not answer within ${TIMEOUT_MS / 1000} s` : 'could not be reached (no answer)')
  }
  if (response.status !== 200) throw new DiscoveryProblem(`answered HTTP ${response.status} instead of 200`)
  let document: unknown
  try {
    document = JSON.parse(await response.text())
  } catch {
    throw new DiscoveryProblem('did not answer JSON')
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw new DiscoveryProblem('did not answer a JSON object')
  const metadata = document as Record<string, unknown>
  for (const field of REQUIRED) {
    if (typeof metadata[field] !== 'string' || metadata[field] === '') throw new DiscoveryProblem(`lists no ${field}`)
  }
  for (const field of ENDPOINTS) {
    const value = metadata[field]
    if (value === undefined) continue
    let endpoint: URL
    try {
      endpoint = new URL(String(value))
    } catch {
      throw new DiscoveryProblem(`lists ${field} that is not a URL`)
    }
    if (endpoint.protocol !== url.protocol) {
      throw new DiscoveryProblem(`lists ${field} on ${endpoint.protocol.slice(0, -1)}, another scheme than the discovery URL's ${url.protocol.slice(0, -1)}`)
    }
  }
  const listed = (field: string) => (Array.isArray(metadata[field]) ? (metadata[field] as unknown[]) : undefined)
  if (listed('response_types_supported') && !listed('response_types_supported')!.includes('code')) throw new DiscoveryProblem('does not support the authorization code flow (response_types_supported lacks code)')
  const algorithms = listed('id_token_signing_alg_values_supported')
  if (algorithms && !algorithms.includes(settings.idTokenSigningAlgorithm)) {
    throw new DiscoveryProblem(`does not sign ID tokens with ${settings.idTokenSigningAlgorithm} (it lists ${algorithms.filter((a) => typeof a === 'string').slice(0, 10).join(', ')})`)
  }
  const challenges = listed('code_challenge_methods_supported')
  if (settings.enablePkce && challenges && !challenges.includes('S256')) throw new DiscoveryProblem('does not support PKCE S256 (code_challenge_methods_supported lacks it)')
  if (settings.enableSingleSignOut && metadata.end_session_endpoint === undefined) throw new DiscoveryProblem('lists no end_session_endpoint, so single sign-out is impossible: turn enableSingleSignOut off')
  if (settings.secret !== '' && clientAuthOf(metadata) === undefined) throw new DiscoveryProblem('supports neither client_secret_basic nor client_secret_post at its token endpoint')
  return metadata as unknown as client.ServerMetadata
}

/** How the client authenticates at the token endpoint: client_secret_basic when offered (the default), else client_secret_post. */
function clientAuthOf (metadata: Record<string, unknown>): 'client_secret_basic' | 'client_secret_post' | undefined {
  const methods = Array.isArray(metadata.token_endpoint_auth_methods_supported) ? metadata.token_endpoint_auth_methods_supported : ['client_secret_basic']
  if (methods.includes('client_secret_basic')) return 'client_secret_basic'
  if (methods.includes('client_secret_post')) return 'client_secret_post'
  return undefined
}

/** The openid-client configuration of a provider and these settings: only the configured algorithm, bounded requests. */
export function configurationOf (metadata: client.ServerMetadata, settings: OidcSettings): client.Configuration {
  const secret = settings.secret === '' ? undefined : settings.secret
  const method = secret === undefined ? undefined : clientAuthOf(metadata as unknown as Record<string, unknown>)
  const auth = secret === undefined ? client.None() : method === 'client_secret_post' ? client.ClientSecretPost(secret) : client.ClientSecretBasic(secret)
  const config = new client.Configuration(metadata, settings.clientId, {
    ...(secret !== undefined && { client_secret: secret }),
    id_token_signed_response_alg: settings.idTokenSigningAlgorithm,
    [client.clockTolerance]: CLOCK_TOLERANCE_S,
  }, auth)
  config[client.customFetch] = boundedFetch
  config.timeout = TIMEOUT_MS / 1000
  // openid-client trusts an ID token from the token endpoint for the TLS it came over (OpenID
  // Connect allows that) and checks no signature by default. Checked here, always: the provider
  // may be on plain http, and a signature is the only proof of whose token it is.
  client.enableNonRepudiationChecks(config)
  if (new URL(settings.discoverUrl).protocol === 'http:') client.allowInsecureRequests(config)
  return config
}

/** What makes a cached configuration stale: the settings the provider sees (the secret as a hash). */
const keyOf = (s: OidcSettings) =>
  JSON.stringify([s.discoverUrl, s.clientId, createHash('sha256').update(s.secret).digest('hex'), s.idTokenSigningAlgorithm, s.enablePkce, s.enableSingleSignOut])

/**
 * The provider's configuration, per instance: discovered at first use, used for an hour, then
 * discovered again (the old one is kept when the provider does not answer then); built anew
 * when the settings change. Concurrent logins wait for one discovery. One configuration keeps
 * openid-client's JWKS cache, so keys are not fetched at every login.
 */
export class IdentityProviders {
  #current: { key: string; config: client.Configuration; at: number } | undefined
  #pending = new Map<string, Promise<client.Configuration>>()

  constructor (private readonly warn: (message: string, details?: object) => void, private readonly ttlMs = DISCOVERY_TTL_MS) {}

  /** The configuration for these settings; a provider that cannot be discovered is a 502 naming why. */
  async configuration (settings: OidcSettings): Promise<client.Configuration> {
    const key = keyOf(settings)
    const current = this.#current
    if (current?.key === key && Date.now() - current.at < this.ttlMs) return current.config
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = this.#discover(settings, key).finally(() => this.#pending.delete(key))
      this.#pending.set(key, pending)
    }
    try {
      return await pending
    } catch (error) {
      if (current?.key === key) {
        this.warn('the identity provider could not be discovered again; the previous discovery is used', { reason: (error as Error).message })
        return current.config
      }
      throw error
    }
  }

  /** The configuration already discovered for these settings, however old; never asks the provider. */
  known (settings: OidcSettings): client.Configuration | undefined {
    const current = this.#current
    return current?.key === keyOf(settings) ? current.config : undefined
  }

  async #discover (settings: OidcSettings, key: string): Promise<client.Configuration> {
    let metadata: client.ServerMetadata
    try {
      metadata = await discover(settings)
    } catch (error) {
      if (!(error instanceof DiscoveryProblem)) throw error
      throw new ApiError('IdentityProviderError', `The identity provider's discovery document (${settings.discoverUrl}) ${error.message}; try again later, or sign in with a password`)
    }
    if (new URL(settings.discoverUrl).protocol === 'http:') {
      this.warn('OpenID Connect discovery is on plain http: tokens and keys travel without TLS (only for a provider on a private network)', { discoverUrl: settings.discoverUrl })
    }
    const config = configurationOf(metadata, settings)
    this.#current = { key, config, at: Date.now() }
    return config
  }
}
