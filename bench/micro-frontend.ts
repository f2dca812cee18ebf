/**
 * In-process micro-benchmark of the frontend evaluator (no HTTP): per context, the evaluation of
 * the features that read it, the assembly of the answer's bytes, and its ETag, over the realistic
 * mix of bench/scenarios/frontend.ts. Less sensitive to a busy machine than the HTTP rows.
 *
 *   npx tsx bench/micro-frontend.ts [flags…]
 */
import type { ClientFeature } from '../src/client/client.schemas.js'
import { frontendContext } from '../src/frontend/context.js'
import { STATIC_CONTEXT } from '../src/evaluation/context.js'
import { Engine } from '../src/frontend/engine.js'
import { AnswerBuffers } from '../src/frontend/pooled-sending.js'

const PAYLOAD = 'p'.repeat(100)

function mix (count: number): ClientFeature[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `web-${String(i).padStart(4, '0')}`
    const kind = i % 10
    const s = (strategy: object) => ({ constraints: [], parameters: {}, variants: [], segments: [], ...strategy })
    const strategies =
      kind < 5
        ? [s({ name: 'default' })]
        : kind < 7
          ? [s({ name: 'flexibleRollout', parameters: { rollout: '30', stickiness: 'default', groupId: name } })]
          : kind === 7
            ? [s({ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: Array.from({ length: 50 }, (_, u) => `user-${u * 37}`) }] })]
            : kind === 8
              ? [
                  s({ name: 'default', constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }] }),
                  s({ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: name }, constraints: [{ contextName: 'age', operator: 'NUM_GTE', value: '18' }] }),
                ]
              : [s({ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: name }, variants: ['a', 'b'].map((v) => ({ name: v, weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `${v}-${PAYLOAD}` } })) })]
    return { name, type: 'release', project: 'default', enabled: true, stale: false, impressionData: false, strategies, variants: [], dependencies: [] } as unknown as ClientFeature
  })
}

for (const count of process.argv.slice(2).map(Number).concat(process.argv.length > 2 ? [] : [100, 1000, 5000])) {
  const engine = new Engine({ features: mix(count), segments: [] })
  const contexts = Array.from({ length: 10_000 }, (_, i) => ({ ...STATIC_CONTEXT, ...frontendContext({ userId: `user-${i}`, age: String(i % 90) }, '127.0.0.1') }))
  const time = (label: string, n: number, work: (i: number) => unknown) => {
    for (let i = 0; i < Math.min(n, 2000); i++) work(i)
    const t0 = process.cpuUsage()
    for (let i = 0; i < n; i++) work(i)
    const used = process.cpuUsage(t0)
    console.log(`${count} flags (${engine.dynamic.length} per request): ${label}: ${((used.user + used.system) / n / 1000).toFixed(4)} ms`)
  }
  const outcomes = contexts.map((c) => engine.evaluate(c).values)
  // As the server assembles: into a buffer taken from the pool and given back once sent.
  const buffers = new AnswerBuffers()
  const assemble = (layout: typeof engine.frontend, values: (typeof outcomes)[number]) => {
    const { buffer } = engine.body(layout, values, (n) => buffers.take(n))
    buffers.give(buffer)
  }
  time('evaluate', 20_000, (i) => engine.evaluate(contexts[i % contexts.length]!))
  time('assemble the frontend answer', 20_000, (i) => assemble(engine.frontend, outcomes[i % outcomes.length]!))
  time('ETag', 20_000, (i) => engine.etag(engine.frontend, outcomes[i % outcomes.length]!))
  time('assemble the OFREP answer', 20_000, (i) => assemble(engine.ofrep, outcomes[i % outcomes.length]!))
}
