import { EventEmitter } from 'node:events'
import { type Context, Unleash, UnleashEvents } from 'unleash-client'
import type { ClientFeature, ClientSegment } from '../client/client.schemas.js'

/** What the engine evaluates: the client API's answer for one environment and project set. */
export interface EngineState {
  features: ClientFeature[]
  segments: ClientSegment[]
}

/**
 * The SDK's repository interface over a fixed state: no polling, no network, no files. The
 * official engine reads features and segments from it.
 */
class StateRepository extends EventEmitter {
  readonly #features: Map<string, ClientFeature>
  readonly #segments: Map<number, ClientSegment>

  constructor (state: EngineState) {
    super()
    this.#features = new Map(state.features.map((f) => [f.name, f]))
    this.#segments = new Map(state.segments.map((s) => [s.id, s]))
  }

  getToggle (name: string) { return this.#features.get(name) as never }
  getToggles () { return [...this.#features.values()] as never[] }
  getTogglesWithSegmentData () {
    return [...this.#features.values()].map((f) => ({
      ...f,
      strategies: f.strategies.map((s) => ({ ...s, segments: (s.segments ?? []).map((id) => this.#segments.get(id)) })),
    })) as never[]
  }

  getSegment (id: number) { return this.#segments.get(id) as never }

  async start () {
    this.emit(UnleashEvents.Ready)
    this.emit(UnleashEvents.Changed, this.getToggles())
  }

  stop () {}
}

/** The variant the official SDK answers, with its feature's state. */
export interface Evaluation {
  name: string
  enabled: boolean
  payload?: { type: string; value: string }
  feature_enabled: boolean
  featureEnabled: boolean
}

/**
 * The official Node SDK (unleash-client) as an evaluation engine over one state: the frontend API
 * and OFREP answer exactly what a server SDK holding that state computes (as Unleash's own
 * frontend API does). Metrics and polling are off; nothing leaves the process.
 */
export class Engine {
  readonly #unleash: Unleash
  readonly names: string[]

  private constructor (unleash: Unleash, state: EngineState) {
    this.#unleash = unleash
    this.names = state.features.map((f) => f.name)
  }

  static async create (state: EngineState): Promise<Engine> {
    const unleash = new Unleash({
      url: 'http://127.0.0.1/evaluation-only',
      appName: 'frontend-api',
      repository: new StateRepository(state) as never,
      disableMetrics: true,
      disableAutoStart: true,
      skipInstanceCountWarning: true,
    })
    unleash.on(UnleashEvents.Error, () => {})
    unleash.on(UnleashEvents.Warn, () => {})
    await unleash.start()
    return new Engine(unleash, state)
  }

  has (name: string): boolean {
    return this.#unleash.getFeatureToggleDefinition(name) !== undefined
  }

  /** The variant of a feature for a context, as the SDK's getVariant answers it. */
  evaluate (name: string, context: Context): Evaluation {
    return this.#unleash.getVariant(name, context) as unknown as Evaluation
  }

  impressionData (name: string): boolean {
    return Boolean(this.#unleash.getFeatureToggleDefinition(name)?.impressionData)
  }

  project (name: string): string | undefined {
    return this.#unleash.getFeatureToggleDefinition(name)?.project
  }

  destroy () {
    this.#unleash.destroy()
  }
}
