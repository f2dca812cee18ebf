import { createHash } from 'node:crypto'
import type { Context } from 'unleash-client'
import type { TokenScope } from '../access/scope.js'
import type { ClientState } from '../client/client-state.js'
import { clientFeatures } from '../client/client.service.js'
import type { Database } from '../db/types.js'
import { strongEtag } from '../http/etag.js'
import { Engine, type Evaluation } from './engines.js'
import { ofrepResult, type OfrepSuccess } from './ofrep.js'

/**
 * Evaluation engines, one per environment and project set, built from the client API's answer
 * for the current state version and rebuilt when it moves (read at most once per
 * CLIENT_STATE_CACHE_MS, so a change is evaluated within it). At most `max` are kept; the
 * least recently used goes first. Concurrent requests share a build.
 */
export class Engines {
  readonly #entries = new Map<string, { version: string; engine: Promise<Engine> }>()

  constructor (
    private readonly db: Database,
    private readonly state: ClientState,
    private readonly max: number
  ) {}

  async for (token: TokenScope): Promise<Engine> {
    const key = JSON.stringify([token.environments[0], token.projects])
    const version = await this.state.version()
    const entry = this.#entries.get(key)
    this.#entries.delete(key)
    if (entry && entry.version === version) {
      this.#entries.set(key, entry)
      return entry.engine
    }
    const engine = this.#build(token)
    this.#entries.set(key, { version, engine })
    engine.catch(() => this.#entries.delete(key))
    if (entry) entry.engine.then((old) => old.destroy(), () => {})
    while (this.#entries.size > this.max) {
      const [oldest, evicted] = this.#entries.entries().next().value as [string, { engine: Promise<Engine> }]
      this.#entries.delete(oldest)
      evicted.engine.then((old) => old.destroy(), () => {})
    }
    return engine
  }

  async #build (token: TokenScope): Promise<Engine> {
    const answer = await clientFeatures(this.db, token, { segments: true })
    return Engine.create({ features: answer.features, segments: answer.segments ?? [] })
  }

  destroy () {
    for (const { engine } of this.#entries.values()) engine.then((e) => e.destroy(), () => {})
    this.#entries.clear()
  }
}

/** A toggle of the frontend API: enabled features only, as Unleash answers. */
export interface FrontendToggle {
  name: string
  enabled: true
  variant: Evaluation
  impressionData: boolean
}

/** The weak-comparable tag of an answer: a hash of its text. */
const etagOfText = (text: string) => strongEtag(createHash('sha256').update(text).digest('base64url').slice(0, 27))

/**
 * The features of the token's environment and projects that are on for the context, with
 * their variants, as JSON text and its ETag.
 */
export async function frontendToggles (engines: Engines, token: TokenScope, context: Context): Promise<{ json: string; etag: string }> {
  const engine = await engines.for(token)
  const toggles: FrontendToggle[] = []
  for (const name of engine.names) {
    const variant = engine.evaluate(name, context)
    if (!variant.feature_enabled) continue
    toggles.push({ name, enabled: true, variant, impressionData: engine.impressionData(name) })
  }
  const json = JSON.stringify({ toggles })
  return { json, etag: etagOfText(json) }
}

/** One flag as OFREP answers it; undefined when the token cannot see a flag of that name. */
export async function ofrepFlag (engines: Engines, token: TokenScope, key: string, context: Context): Promise<OfrepSuccess | undefined> {
  const engine = await engines.for(token)
  if (!engine.has(key)) return undefined
  return ofrepResult(key, engine.evaluate(key, context), engine.project(key))
}

/** Every flag the token can see, as OFREP's bulk answer, as JSON text and its ETag. */
export async function ofrepFlags (engines: Engines, token: TokenScope, context: Context): Promise<{ json: string; etag: string }> {
  const engine = await engines.for(token)
  const flags = engine.names.map((name) => ofrepResult(name, engine.evaluate(name, context), engine.project(name)))
  const json = JSON.stringify({ flags })
  return { json, etag: etagOfText(json) }
}
