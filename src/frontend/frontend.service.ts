import type { TokenScope } from '../access/scope.js'
import { type EvaluationContext, STATIC_CONTEXT } from '../evaluation/context.js'
import type { FrontendContext } from './context.js'
import type { Engines } from './engines.js'
import { type Answer, lend } from './pooled-sending.js'

/**
 * The context the engine reads: what the SDK embedded in Unleash's frontend API fills in, then
 * the request's. Always the same fields in the same order (those absent undefined, which
 * JSON.stringify leaves out of the kept answers' key): the evaluator's reads of a field see one
 * shape of object, and two requests that give the same fields in another order share a key.
 */
const evaluationContext = (context: FrontendContext): EvaluationContext => ({
  appName: context.appName ?? STATIC_CONTEXT.appName,
  environment: context.environment ?? STATIC_CONTEXT.environment,
  userId: context.userId,
  sessionId: context.sessionId,
  remoteAddress: context.remoteAddress,
  currentTime: context.currentTime,
  properties: context.properties,
})

/** The features of the token's environment and projects that are on for the context, with their variants. */
export async function frontendToggles (engines: Engines, token: TokenScope, context: FrontendContext): Promise<Answer> {
  const engine = await engines.for(token)
  const kept = engines.answers.outcomes(engine, evaluationContext(context))
  kept.frontendEtag ??= engine.etag(engine.frontend, kept.outcomes)
  return { etag: kept.frontendEtag, body: () => lend(engines.buffers, (take) => engine.body(engine.frontend, kept.outcomes, take)) }
}

/** Every flag the token can see, as OFREP's bulk answer. */
export async function ofrepFlags (engines: Engines, token: TokenScope, context: FrontendContext): Promise<Answer> {
  const engine = await engines.for(token)
  const kept = engines.answers.outcomes(engine, evaluationContext(context))
  kept.ofrepEtag ??= engine.etag(engine.ofrep, kept.outcomes)
  return { etag: kept.ofrepEtag, body: () => lend(engines.buffers, (take) => engine.body(engine.ofrep, kept.outcomes, take)) }
}

/** One flag as OFREP answers it, as JSON bytes; undefined when the token cannot see a flag of that name. */
export async function ofrepFlag (engines: Engines, token: TokenScope, key: string, context: FrontendContext): Promise<Buffer | undefined> {
  const engine = await engines.for(token)
  return engine.ofrepFlag(key, evaluationContext(context))
}
