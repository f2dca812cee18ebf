import type { TokenScope } from '../access/scope.js'
import type { TokenLookup } from '../auth/auth.plugin.js'
import { ApiError } from '../errors.js'
import { type BackedToken, secretHash } from './backup.js'
import type { ScopeState } from './scope.js'
import type { ValidatedToken } from './upstream.js'

/** What a token's secret can look like: no spaces or control characters, at most 1,000 characters. */
const WELL_FORMED = /^[\x21-\x7e]{1,1000}$/
/** How long a secret the upstream refused is refused without asking again. */
const REFUSED_MS = 60_000
const MAX_REFUSED = 10_000
/** How long a request waits for its token's flags to arrive from the upstream. */
const HYDRATION_WAIT_MS = 10_000
/** Secrets asked about in one POST /edge/validate (the upstream takes at most 1,000). */
export const VALIDATE_BATCH = 1000

interface Known {
  token: TokenScope
  secret: string
  /** A client token's scope. */
  scope: ScopeState | undefined
  /** Known from the backup while the upstream could not be asked: confirmed (or forgotten) when it answers. */
  provisional: boolean
}

/** What the registry asks of the relay. */
export interface TokenHost {
  /** Asks the upstream which of these secrets are valid (throws when it cannot be reached). */
  validate(secrets: readonly string[]): Promise<ValidatedToken[]>
  /** The scope of a client token, followed from now on with its secret. */
  follow(environment: string, projects: string[], secret: string): ScopeState
  /** The secret is no longer valid: its scope is followed with another, or dropped. */
  release(scope: ScopeState, secret: string): void
  /** A token was deleted upstream: its streams end. */
  revoked(name: string): void
  /** The ready client scopes that may serve a frontend token, in the order TOKENS gave them. */
  scopesCovering(token: TokenScope): ScopeState | undefined
  /** The secret a scope is followed with. */
  secretOf(scope: ScopeState): string | undefined
  /** The known tokens changed (for the backup). */
  changed(tokens: BackedToken[]): void
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void }
}

const unreachable = () => new ApiError('ServiceUnavailableError', 'The relay cannot reach its upstream to check this API token; try again shortly')

/**
 * The API tokens a relay knows: those of TOKENS, checked at start, and any other an SDK
 * presents, checked once with the upstream (POST /edge/validate; concurrent checks go in one
 * request) and then served. A secret the upstream does not know is refused (401) and not asked
 * about again for a minute. Every known token is checked again periodically (`revalidate`):
 * one deleted upstream is forgotten, and its streams end. While the upstream cannot be reached,
 * a token the backup folder knows (by its secret's SHA-256) is served from it.
 */
export class RelayTokens implements TokenLookup {
  readonly #known = new Map<string, Known>()
  readonly #refused = new Map<string, number>()
  readonly #backed = new Map<string, BackedToken>()
  #batch: { secret: string; done: (error?: unknown) => void }[] = []
  #batchTimer: NodeJS.Timeout | undefined
  /** A question to the upstream is under way: secrets asked meanwhile wait for the next one. */
  #asking = false
  readonly #covering = new WeakMap<TokenScope, ScopeState>()
  readonly #secretOf = new WeakMap<TokenScope, string>()
  readonly #scopeOf = new WeakMap<TokenScope, ScopeState>()

  constructor (private readonly host: TokenHost) {}

  /** Tokens the backup knows, by their secrets' hashes. */
  remember (tokens: readonly BackedToken[]): void {
    for (const t of tokens) if (typeof t?.hash === 'string') this.#backed.set(t.hash, t)
  }

  get size (): number {
    return this.#known.size
  }

  /** Whether a secret is known and, for a client token, its flags are held. */
  served (secret: string): boolean {
    const known = this.#known.get(secret)
    return known !== undefined && (known.scope === undefined || known.scope.ready)
  }

  refusedRecently (secret: string): boolean {
    const until = this.#refused.get(secret)
    return until !== undefined && until > Date.now()
  }

  cached (secret: string): TokenScope | undefined {
    const known = this.#known.get(secret)
    if (known === undefined || (known.scope !== undefined && !known.scope.ready)) return undefined
    return known.token
  }

  async lookup (secret: string): Promise<TokenScope | undefined> {
    if (!WELL_FORMED.test(secret) || this.refusedRecently(secret)) return undefined
    if (!this.#known.has(secret)) {
      try {
        await this.#check(secret)
      } catch (error) {
        if (!this.#fromBackup(secret)) throw unreachable()
      }
    }
    const known = this.#known.get(secret)
    if (known === undefined) return undefined
    if (known.scope !== undefined && !known.scope.ready) await this.#hydrated(known.scope)
    return known.token
  }

  async #hydrated (scope: ScopeState): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new ApiError('ServiceUnavailableError', 'The relay has not received this token\'s flags from its upstream yet; try again shortly')), HYDRATION_WAIT_MS)
    })
    try {
      await Promise.race([scope.whenReady(), late])
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Checks a secret with the upstream, in one request with the others asked for meanwhile: one
   * question at a time, so that a flood of made-up tokens costs the upstream one request at a
   * time (of up to 1,000 secrets), however many arrive.
   */
  #check (secret: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#batch.push({ secret, done: (error) => (error === undefined ? resolve() : reject(error)) })
      this.#schedule()
    })
  }

  #schedule () {
    if (this.#asking || this.#batchTimer !== undefined || this.#batch.length === 0) return
    this.#batchTimer = setTimeout(() => {
      this.#batchTimer = undefined
      this.#sendBatch().finally(() => {
        this.#asking = false
        this.#schedule()
      })
    }, 5)
  }

  async #sendBatch (): Promise<void> {
    this.#asking = true
    const batch = this.#batch.splice(0, VALIDATE_BATCH)
    const secrets = [...new Set(batch.map((b) => b.secret))]
    try {
      this.accept(secrets, await this.host.validate(secrets))
      for (const b of batch) b.done()
    } catch (error) {
      for (const b of batch) b.done(error)
    }
  }

  /**
   * The upstream's answer about `asked`: the valid ones are known (confirmed), the others
   * refused, and forgotten when they were known.
   */
  accept (asked: readonly string[], valid: readonly ValidatedToken[]): void {
    const byToken = new Map(valid.map((v) => [v.token, v]))
    let changed = false
    for (const secret of asked) {
      const validated = byToken.get(secret)
      const known = this.#known.get(secret)
      if (validated === undefined) {
        if (known !== undefined) this.forget(secret, 'the upstream no longer knows it')
        else this.#refuse(secret)
        continue
      }
      if (known !== undefined && sameScope(known.token, validated)) {
        if (known.provisional) {
          known.provisional = false
          changed = true
        }
        continue
      }
      if (known !== undefined) this.forget(secret, 'its scope changed upstream')
      this.#add(secret, validated, false)
      changed = true
    }
    if (changed) this.#backup()
  }

  /** A secret the backup knows, served from it while the upstream cannot be asked. */
  #fromBackup (secret: string): boolean {
    const backed = this.#backed.get(secretHash(secret))
    if (backed === undefined) return false
    this.#add(secret, { token: secret, type: backed.type, projects: backed.projects, environment: backed.environment }, true)
    this.host.log.info({ token: tokenName(secret) }, 'relay: the upstream cannot be reached; a token known from BACKUP_FOLDER is served from it')
    return true
  }

  /** Known secrets, or those of `more` the backup knows, served while the upstream is away. */
  restore (secrets: readonly string[]): void {
    for (const secret of secrets) if (!this.#known.has(secret)) this.#fromBackup(secret)
  }

  #add (secret: string, validated: ValidatedToken, provisional: boolean) {
    const projects = [...validated.projects].sort()
    const token: TokenScope = { name: tokenName(secret), type: validated.type, projects, environments: [validated.environment] }
    const scope = validated.type === 'client' ? this.host.follow(validated.environment, projects, secret) : undefined
    this.#known.set(secret, { token, secret, scope, provisional })
    this.#secretOf.set(token, secret)
    if (scope !== undefined) this.#scopeOf.set(token, scope)
  }

  #refuse (secret: string) {
    if (this.#refused.size >= MAX_REFUSED) this.#refused.delete(this.#refused.keys().next().value!)
    this.#refused.set(secret, Date.now() + REFUSED_MS)
  }

  /** The upstream refused a known secret: it is refused from now on, and its streams end. */
  forget (secret: string, why: string): void {
    const known = this.#known.get(secret)
    this.#refuse(secret)
    if (known === undefined) return
    this.#known.delete(secret)
    this.host.log.warn({ token: known.token.name, type: known.token.type, why }, 'relay: a token is no longer served')
    if (known.scope !== undefined) this.host.release(known.scope, secret)
    this.host.revoked(known.token.name)
    this.#backup()
  }

  /** Every known secret (to check them again). */
  secrets (): string[] {
    return [...this.#known.keys()]
  }

  /** A client token's scope, while it is served. */
  scopeOf (token: TokenScope): ScopeState | undefined {
    const scope = this.#scopeOf.get(token)
    return scope?.alive === true ? scope : undefined
  }

  /** The client scope serving a frontend token: one of the same environment whose projects cover its own. */
  covering (token: TokenScope): ScopeState | undefined {
    const kept = this.#covering.get(token)
    if (kept !== undefined && kept.alive && kept.ready) return kept
    const found = this.host.scopesCovering(token)
    if (found !== undefined) this.#covering.set(token, found)
    return found
  }

  /** The secret usage is sent upstream with: a client token's own; for a frontend token, the covering client scope's. */
  upstreamSecret (token: TokenScope): string | undefined {
    if (token.type === 'client') return this.#secretOf.get(token)
    const scope = token.type === 'frontend' ? this.covering(token) : undefined
    return scope === undefined ? undefined : this.host.secretOf(scope)
  }

  #backup () {
    this.host.changed([...this.#known.values()].map((k) => ({
      hash: secretHash(k.secret),
      type: k.token.type,
      environment: k.token.environments[0]!,
      projects: k.token.projects,
    })))
  }
}

/** A token's name at a relay (in logs, stream limits and usage): a short hash of its secret, which it never shows. */
export const tokenName = (secret: string) => `relay-token-${secretHash(secret).slice(0, 12)}`

const sameScope = (token: TokenScope, validated: ValidatedToken) =>
  token.type === validated.type && token.environments[0] === validated.environment && token.projects.join('\n') === [...validated.projects].sort().join('\n')
