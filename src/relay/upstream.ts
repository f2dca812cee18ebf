import type { TokenType } from '../access/scope.js'

/** A token the upstream says is valid (POST /edge/validate). */
export interface ValidatedToken {
  token: string
  type: TokenType
  projects: string[]
  environment: string
}

/** The upstream could not be reached, or answered with an error of its own (5xx, 429, something that is not its API). */
export class UpstreamError extends Error {
  override name = 'UpstreamError'
}

/** How long a request to the upstream may take (a stream: until its headers arrive). */
const TIMEOUT_MS = 10_000
/** The largest answer read from the upstream. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024

/** What the relay says about itself to the upstream, on every request. */
export interface RelayIdentity {
  appName: string
  instanceId: string
}

/**
 * The upstream (this server, another relay, or Unleash), over HTTP. Every request is bounded in
 * time and size; the outcome of the last one says whether the upstream is up.
 */
export class Upstream {
  /** Whether the last request reached the upstream and got an answer of its API; undefined before the first. */
  up: boolean | undefined
  /** Since when `up` has been what it is (ms). */
  since = Date.now()
  /** Why the last failure failed. */
  lastError: string | undefined
  readonly #headers: Record<string, string>
  /** Requests sent, by kind: for the metrics and tests. */
  readonly requests = { validate: 0, features: 0, stream: 0, bulk: 0 }

  constructor (readonly url: string, identity: RelayIdentity) {
    this.#headers = {
      'unleash-appname': identity.appName,
      'unleash-instanceid': identity.instanceId,
      // Segments once at the top level, strategies naming them (client specification 4.2.0 and later).
      'unleash-client-spec': '5.2.0',
      'unleash-sdk': 'ffapi-relay:1',
      'user-agent': 'ffapi-relay',
    }
  }

  #mark (ok: boolean, error?: string) {
    if (this.up !== ok) this.since = Date.now()
    this.up = ok
    if (!ok) this.lastError = error
  }

  async #fetch (path: string, init: RequestInit & { secret?: string | undefined }, timeoutMs = TIMEOUT_MS): Promise<Response> {
    const { secret, ...rest } = init
    let res: Response
    try {
      res = await fetch(`${this.url}${path}`, {
        ...rest,
        headers: { ...this.#headers, ...(secret !== undefined && { authorization: secret }), ...(rest.headers as Record<string, string> | undefined) },
        signal: rest.signal ?? AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      })
    } catch (error) {
      const message = `${path}: ${(error as Error).message}`
      this.#mark(false, message)
      throw new UpstreamError(message, { cause: error })
    }
    if (res.status >= 500 || res.status === 429) {
      await res.body?.cancel()
      const message = `${path}: answered ${res.status}`
      this.#mark(false, message)
      throw new UpstreamError(message)
    }
    this.#mark(true)
    return res
  }

  /** The answer's JSON, read up to MAX_ANSWER_BYTES. */
  async #json (res: Response, path: string): Promise<unknown> {
    const chunks: Uint8Array[] = []
    let size = 0
    if (res.body !== null) {
      for await (const chunk of res.body) {
        size += chunk.byteLength
        if (size > MAX_ANSWER_BYTES) {
          await res.body.cancel()
          throw this.#failed(`${path}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`)
        }
        chunks.push(chunk)
      }
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      throw this.#failed(`${path}: the answer is not JSON`)
    }
  }

  #failed (message: string): UpstreamError {
    this.#mark(false, message)
    return new UpstreamError(message)
  }

  /** The valid tokens among `secrets` (POST /edge/validate), with their scopes. */
  async validate (secrets: readonly string[]): Promise<ValidatedToken[]> {
    const path = '/edge/validate'
    this.requests.validate++
    const res = await this.#fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tokens: secrets }) })
    if (res.status !== 200) {
      await res.body?.cancel()
      throw this.#failed(`${path}: answered ${res.status}`)
    }
    const body = await this.#json(res, path) as { tokens?: unknown }
    if (!Array.isArray(body.tokens)) throw this.#failed(`${path}: the answer has no tokens`)
    const asked = new Set(secrets)
    return body.tokens.flatMap((t: { token?: unknown; type?: unknown; projects?: unknown; environment?: unknown }): ValidatedToken[] => {
      if (typeof t?.token !== 'string' || !asked.has(t.token) || !Array.isArray(t.projects) || !t.projects.every((p) => typeof p === 'string')) return []
      const type = t.type === 'backend' || t.type === 'client' ? 'client' : t.type === 'frontend' ? 'frontend' : t.type === 'admin' ? 'admin' : undefined
      if (type === undefined) return []
      const environment = typeof t.environment === 'string' ? t.environment : '*'
      return [{ token: t.token, type, projects: t.projects as string[], environment }]
    })
  }

  /**
   * GET /api/client/features with the ETag held: 304, the answer, or the upstream's refusal of
   * the token. `signal` ends it early (the request and the reading of its answer), as does
   * TIMEOUT_MS.
   */
  async features (secret: string, etag: string | undefined, signal?: AbortSignal): Promise<{ status: 304 } | { status: 200; etag: string | undefined; body: unknown } | { status: 'refused'; code: number }> {
    const path = '/api/client/features'
    this.requests.features++
    const headers: Record<string, string> = etag === undefined ? {} : { 'if-none-match': etag }
    const res = await this.#fetch(path, { secret, headers, ...(signal !== undefined && { signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) }) })
    if (res.status === 304) {
      await res.body?.cancel()
      return { status: 304 }
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel()
      return { status: 'refused', code: res.status }
    }
    if (res.status !== 200) {
      await res.body?.cancel()
      throw this.#failed(`${path}: answered ${res.status}`)
    }
    return { status: 200, etag: res.headers.get('etag') ?? undefined, body: await this.#json(res, path) }
  }

  /** Opens GET /api/client/streaming (the answer's body is the stream; the caller reads and closes it). */
  stream (secret: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    this.requests.stream++
    const timeout = AbortSignal.timeout(TIMEOUT_MS)
    const headers = { accept: 'text/event-stream', ...(lastEventId !== undefined && { 'last-event-id': lastEventId }) }
    // The timeout covers the headers only: the stream itself lives until `signal` aborts it.
    const controller = new AbortController()
    const abort = () => controller.abort()
    signal.addEventListener('abort', abort, { once: true })
    timeout.addEventListener('abort', abort, { once: true })
    return this.#fetch('/api/client/streaming', { secret, headers, signal: controller.signal }).finally(() => timeout.removeEventListener('abort', abort))
  }

  /** POST /api/client/metrics/bulk: the status of the upstream's answer (2xx delivered, 4xx refused). */
  async bulk (secret: string, body: unknown): Promise<number> {
    this.requests.bulk++
    const res = await this.#fetch('/api/client/metrics/bulk', { method: 'POST', secret, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    await res.body?.cancel()
    return res.status
  }

  /** Records the outcome of reading a stream (a stream that ended or went silent is a failure). */
  markStream (ok: boolean, error?: string) {
    this.#mark(ok, error)
  }
}
