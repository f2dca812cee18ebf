import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { TokenScope } from '../access/scope.js'
import { every, type Worker } from '../background/worker.js'
import type { RelayConfig } from '../config.js'
import { Backup, type BackedToken } from './backup.js'
import { Follower, type UpstreamModes } from './follower.js'
import { ScopeState } from './scope.js'
import { RelayTokens, tokenName, VALIDATE_BATCH } from './tokens.js'
import { Upstream, UpstreamError } from './upstream.js'

export interface RelayLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
  debug(obj: object, msg: string): void
}

/** A token deleted upstream, and where it falls among the changes (its streams end). */
interface Revocation {
  seq: number
  name: string
}

/** Revocations remembered for streams that have not read them yet. */
const REVOCATIONS_KEPT = 10_000

/**
 * A relay's state, held in memory: one scope (the flags of an environment and project set) per
 * client token it serves, each kept in step with the upstream by a Follower; the tokens it
 * knows (RelayTokens); the backup folder. Every change of a scope and every token deleted
 * upstream gets the next sequence number and wakes the subscribers (the streams of the SDKs
 * behind it).
 */
export class Relay implements Worker {
  readonly upstream: Upstream
  readonly modes: UpstreamModes = { streams: undefined }
  readonly tokens: RelayTokens
  readonly scopes = new Map<string, ScopeState>()
  /** The secrets each scope is followed with, TOKENS' first. */
  readonly #secrets = new Map<string, string[]>()
  readonly #followers = new Map<string, Follower>()
  readonly #listeners = new Set<() => void>()
  #revocations: Revocation[] = []
  #seq = 0
  readonly #backup: Backup | undefined
  readonly #checks: Worker
  #started = false
  #stopped = false
  /** TOKENS the upstream refused: left out of readiness (a log line says so). */
  readonly #refusedAtStart = new Set<string>()

  constructor (private readonly config: RelayConfig, private readonly log: RelayLog) {
    this.upstream = new Upstream(config.upstreamUrl, { appName: 'ffapi-relay', instanceId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}` })
    this.#backup = config.backupFolder === undefined ? undefined : new Backup(config.backupFolder, log)
    this.tokens = new RelayTokens({
      validate: (secrets) => this.upstream.validate(secrets),
      follow: (environment, projects, secret) => this.#follow(environment, projects, secret),
      release: (scope, secret) => this.#release(scope, secret),
      revoked: (name) => this.#revoked(name),
      scopesCovering: (token) => this.#scopeCovering(token),
      secretOf: (scope) => this.#secrets.get(scope.key)?.[0],
      changed: (tokens: BackedToken[]) => this.#backup?.saveTokens(tokens),
      log,
    })
    // Tokens are checked at least every 30 s, so that one deleted upstream is refused within a minute.
    this.#checks = every(Math.min(config.refreshIntervalMs, 30_000), () => this.checkTokens(), { onError: (err) => log.warn({ err }, 'relay: checking tokens failed') })
  }

  /** The latest change's number. */
  get seq (): number {
    return this.#seq
  }

  readonly nextSeq = () => ++this.#seq

  subscribe (listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #emit () {
    for (const listener of this.#listeners) listener()
  }

  /** Names of tokens deleted upstream after `seq`, or undefined when they are no longer known that far back. */
  revokedAfter (seq: number): string[] {
    return this.#revocations.filter((r) => r.seq > seq).map((r) => r.name)
  }

  async start (): Promise<void> {
    if (this.#started) return
    this.#started = true
    if (this.#backup !== undefined) {
      const { tokens, scopes } = await this.#backup.load()
      this.tokens.remember(tokens)
      for (const backed of scopes) {
        const scope = this.#scope(backed.environment, backed.projects)
        scope.replace(backed.features, backed.segments, BigInt(backed.revision), this.nextSeq)
        scope.origin = backed.upstream === this.config.upstreamUrl ? backed.origin : 'backup'
        scope.upstreamEtag = backed.upstream === this.config.upstreamUrl ? backed.upstreamEtag : undefined
      }
      if (scopes.length > 0) this.log.info({ scopes: scopes.length, tokens: tokens.length }, 'relay: read BACKUP_FOLDER')
    }
    await this.checkTokens()
    if (!this.#stopped) this.#checks.start()
  }

  async stop (): Promise<void> {
    this.#stopped = true
    await this.#checks.stop()
    await Promise.all([...this.#followers.values()].map((f) => f.stop()))
    this.#followers.clear()
    await this.#backup?.close()
  }

  /**
   * Checks every known token and every one of TOKENS with the upstream (in batches of 1,000):
   * the valid ones are served, the others refused. While the upstream cannot be reached, the
   * tokens of TOKENS the backup knows are served from it.
   */
  async checkTokens (): Promise<void> {
    const secrets = [...new Set([...this.config.tokens, ...this.tokens.secrets()])]
    try {
      for (let i = 0; i < secrets.length; i += VALIDATE_BATCH) {
        const batch = secrets.slice(i, i + VALIDATE_BATCH)
        const valid = await this.upstream.validate(batch)
        this.tokens.accept(batch, valid)
        this.#noteRefusedAtStart(batch, valid.map((v) => v.token))
      }
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      this.tokens.restore(this.config.tokens)
      this.log.warn({ reason: error.message }, 'relay: the upstream cannot be reached; serving what is held')
    }
  }

  #noteRefusedAtStart (asked: string[], valid: string[]) {
    const ok = new Set(valid)
    for (const secret of asked) {
      if (!this.config.tokens.includes(secret)) continue
      if (ok.has(secret)) {
        this.#refusedAtStart.delete(secret)
      } else if (!this.#refusedAtStart.has(secret)) {
        this.#refusedAtStart.add(secret)
        this.log.error({ token: tokenName(secret) }, 'relay: the upstream does not know a token of TOKENS; it is not served')
      }
    }
  }

  /** Whether every token of TOKENS is served (or was refused by the upstream), and which are still awaited. */
  readiness (): { ready: boolean; waiting: number } {
    const waiting = this.config.tokens.filter((secret) => !this.#refusedAtStart.has(secret) && !this.tokens.served(secret)).length
    return { ready: this.#started && waiting === 0, waiting }
  }

  #scope (environment: string, projects: readonly string[]): ScopeState {
    const probe = new ScopeState(environment, projects)
    const existing = this.scopes.get(probe.key)
    if (existing !== undefined) return existing
    this.scopes.set(probe.key, probe)
    return probe
  }

  #follow (environment: string, projects: string[], secret: string): ScopeState {
    const scope = this.#scope(environment, projects)
    const secrets = this.#secrets.get(scope.key) ?? []
    if (!secrets.includes(secret)) {
      // TOKENS' secrets first: the scope is followed with one the operator chose when there is one.
      if (this.config.tokens.includes(secret)) secrets.unshift(secret)
      else secrets.push(secret)
    }
    this.#secrets.set(scope.key, secrets)
    if (!this.#followers.has(scope.key) && !this.#stopped) {
      const follower = new Follower(scope, this.upstream, this.modes, this.config.refreshIntervalMs, {
        secret: () => this.#secrets.get(scope.key)?.[0],
        refused: (refused) => this.tokens.forget(refused, 'the upstream refused it'),
        changed: (changed) => this.#changed(changed),
        seq: this.nextSeq,
        log: this.log,
      })
      this.#followers.set(scope.key, follower)
      follower.start()
    }
    return scope
  }

  #changed (scope: ScopeState) {
    this.#backup?.saveScope(scope, this.config.upstreamUrl)
    this.#emit()
  }

  #release (scope: ScopeState, secret: string) {
    const secrets = (this.#secrets.get(scope.key) ?? []).filter((s) => s !== secret)
    if (secrets.length > 0) {
      this.#secrets.set(scope.key, secrets)
      this.#followers.get(scope.key)?.nudge()
      return
    }
    this.#secrets.delete(scope.key)
    scope.alive = false
    this.scopes.delete(scope.key)
    const follower = this.#followers.get(scope.key)
    this.#followers.delete(scope.key)
    // Not awaited: the follower may be the caller (it found its secret refused).
    follower?.stop().catch((err: unknown) => this.log.warn({ err }, 'relay: stopping a follower failed'))
    this.#backup?.removeScope(scope.key)
    this.#emit()
  }

  #revoked (name: string) {
    this.#revocations.push({ seq: this.nextSeq(), name })
    if (this.#revocations.length > REVOCATIONS_KEPT) this.#revocations = this.#revocations.slice(-REVOCATIONS_KEPT / 2)
    this.#emit()
  }

  /** A ready, followed client scope of the frontend token's environment whose projects cover its own; TOKENS' first. */
  #scopeCovering (token: TokenScope): ScopeState | undefined {
    let found: ScopeState | undefined
    for (const [key, secrets] of this.#secrets) {
      const scope = this.scopes.get(key)
      if (scope === undefined || !scope.ready || !scope.covers(token)) continue
      if (secrets.some((s) => this.config.tokens.includes(s))) return scope
      found ??= scope
    }
    return found
  }

  /** Scopes whose follower does not hold a live connection: for /ready and the metrics. */
  get followed (): number {
    return this.#followers.size
  }
}
