/**
 * The reference: the official Node SDK (unleash-client) over a fixed state, evaluating as
 * Unleash's frontend API embeds it (appName frontend-api, environment default, no polling, no
 * metrics). The frontend API and OFREP must answer what it answers.
 */
import { EventEmitter } from 'node:events'
import { Unleash, UnleashEvents } from 'unleash-client'
import { expect, vi } from 'vitest'
import type { ClientFeature, ClientSegment } from '../../src/client/client.schemas.js'
import { Evaluation, STATIC_CONTEXT } from '../../src/evaluation/context.js'
import type { VariantAnswer } from '../../src/evaluation/variants.js'
import { frontendContext } from '../../src/frontend/context.js'

export interface OracleState {
  features: ClientFeature[]
  segments: ClientSegment[]
}

/** The SDK's repository interface over a fixed state: no network, no files. */
class StateRepository extends EventEmitter {
  readonly #features: Map<string, ClientFeature>
  readonly #segments: Map<number, ClientSegment>

  constructor (state: OracleState) {
    super()
    this.#features = new Map(state.features.map((f) => [f.name, f]))
    this.#segments = new Map(state.segments.map((s) => [s.id, s]))
  }

  getToggle (name: string) { return this.#features.get(name) as never }
  getToggles () { return [...this.#features.values()] as never[] }
  getTogglesWithSegmentData () { return this.getToggles() }
  getSegment (id: number) { return this.#segments.get(id) as never }

  async start () {
    this.emit(UnleashEvents.Ready)
    this.emit(UnleashEvents.Changed, this.getToggles())
  }

  stop () {}
}

export class Oracle {
  private constructor (readonly unleash: Unleash) {}

  static async create (state: OracleState): Promise<Oracle> {
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
    return new Oracle(unleash)
  }

  variant (name: string, context: object): VariantAnswer {
    return this.unleash.getVariant(name, context as never) as unknown as VariantAnswer
  }

  destroy () {
    this.unleash.destroy()
  }
}

/**
 * One rule per feature against the SDK: for every request (Math.random giving its `draw` on
 * both sides), `ours(i, evaluation)` must equal `theirs(the SDK's answer for features[i])`;
 * `label(i)` names the rule in a failure. Returns how many answers were compared.
 */
export async function agreesWithSdk (
  features: ClientFeature[],
  requests: readonly { fields: Record<string, string>; caller: string; draw: number }[],
  ours: (i: number, e: Evaluation) => unknown,
  theirs: (answer: VariantAnswer) => unknown,
  label: (i: number) => unknown
): Promise<number> {
  const oracle = await Oracle.create({ features, segments: [] })
  const random = vi.spyOn(Math, 'random')
  let compared = 0
  try {
    for (const { fields, caller, draw } of requests) {
      const context = frontendContext(fields, caller)
      random.mockReturnValue(draw)
      features.forEach((feature, i) => {
        const mine = ours(i, new Evaluation({ ...STATIC_CONTEXT, ...context }))
        expect(mine, JSON.stringify({ rule: label(i), fields, draw })).toEqual(theirs(oracle.variant(feature.name, context)))
        compared++
      })
    }
  } finally {
    random.mockRestore()
    oracle.destroy()
  }
  return compared
}
