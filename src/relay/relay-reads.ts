import type { TokenScope } from '../access/scope.js'
import { clientAnswer, filterSnapshot, serves } from '../client/client-answer.js'
import { type ClientFeaturesReader, clientEtag, clientFilter, outsideScope } from '../client/client.service.js'
import type { ClientFeature } from '../client/client.schemas.js'
import type { ClientFilter } from '../client/client.store.js'
import type { EvaluatorState } from '../evaluation/compile.js'
import { ApiError, notFound } from '../errors.js'
import type { EngineSource } from '../frontend/engines.js'
import { type DeltaReader, parseRevision, type StreamScope } from '../streaming/delta.service.js'
import type { DeltaEvent } from '../streaming/streaming.schemas.js'
import type { StreamJoin, StreamRound, StreamSource, StreamUpdate } from '../streaming/streams.service.js'
import type { Relay } from './relay.js'
import type { ScopeState } from './scope.js'

/*
 * What a relay serves, read from its memory: the client API's answer (prepared bytes per scope
 * and revision), delta polls, the streams' rounds, and the frontend engines' definitions. The
 * routes are the server's; these stand where the server reads its database.
 */

/** Filtered answers kept per scope and revision, besides the two whole ones. */
const KEPT_FILTERED = 64

const gone = () => new ApiError('UnauthorizedError', 'The API token is unknown or was deleted')

/** The scope of a client token (the auth plugin let it in: it is served, unless deleted a moment ago). */
function scopeOf (relay: Relay, token: TokenScope): ScopeState {
  const scope = relay.tokens.scopeOf(token)
  if (scope === undefined || !scope.ready) throw gone()
  return scope
}

/** GET /api/client/features: the answer's bytes are made once per scope, revision and form, and sent as they are. */
export function relayClientFeatures (relay: Relay): ClientFeaturesReader {
  return async (token, request) => {
    const scope = scopeOf(relay, token)
    const whole = request.namePrefix === undefined && request.project === undefined
    const key = whole ? (request.segments ? 'whole' : 'whole-inlined') : undefined
    let prepared = key === undefined ? undefined : scope.prepared.get(key)
    if (prepared === undefined) {
      const etag = clientEtag(String(scope.revision), token, request)
      prepared = scope.prepared.get(etag)
      if (prepared === undefined) {
        const made = { etag, bytes: Buffer.from(JSON.stringify(clientAnswer(scope.snapshot(), token, request))) }
        if (key === undefined && scope.prepared.size >= KEPT_FILTERED + 2) scope.prepared.clear()
        scope.prepared.set(key ?? etag, made)
        prepared = made
      }
    }
    const { etag, bytes } = prepared
    return { etag, json: () => bytes }
  }
}

/** One feature a token reads, in the client format with its segments inlined (GET /api/client/features/:name); 404 as on the server. */
export function relayClientFeature (relay: Relay) {
  return async (token: TokenScope, name: string): Promise<ClientFeature> => {
    const { features } = clientAnswer(scopeOf(relay, token).snapshot(), token, { segments: false, namePrefix: name })
    const found = features.find((f) => f.name === name)
    if (found === undefined) throw notFound(`Feature ${name} does not exist`)
    return found
  }
}

/** Delta events an SDK of `filter` reads (segment events always: the features it holds may use them). */
function filterEvents (events: readonly DeltaEvent[], filter: ClientFilter): DeltaEvent[] {
  if (outsideScope(filter)) return []
  return events.filter((e) =>
    e.type === 'feature-updated' ? serves(filter, e.feature) : e.type === 'feature-removed' ? serves(filter, { name: e.featureName, project: e.project }) : true)
}

const hydrationOf = (scope: ScopeState, filter: ClientFilter): DeltaEvent =>
  ({ type: 'hydration', eventId: Number(scope.revision), ...filterSnapshot(scope.snapshot(), filter) })

/** GET /api/client/delta: 304 for the current revision, the changes since a recent one, a hydration otherwise. */
export function relayDelta (relay: Relay): DeltaReader {
  return async (token, query, held) => {
    const scope = scopeOf(relay, token)
    const filter = clientFilter(token, query)
    const etag = `"${scope.revision}"`
    const revision = parseRevision(held)
    if (revision === scope.revision) return { etag, json: undefined }
    const since = scope.since(revision)
    const events = since === undefined ? [hydrationOf(scope, filter)] : filterEvents(since, filter)
    return { etag, json: JSON.stringify({ events }) }
  }
}

/** The streams' source at a relay: the position is the relay's change number. */
export function relayStreamSource (relay: Relay): StreamSource<number> {
  return {
    subscribe: (listener) => relay.subscribe(listener),
    read: async (from: number | undefined, scopes: readonly StreamScope[], joins: readonly StreamJoin[]): Promise<StreamRound<number>> => {
      const position = relay.seq
      const updates = new Map<string, StreamUpdate>()
      if (from !== undefined) {
        for (const { key, filter } of scopes) {
          const scope = relay.scopes.get(key)
          if (scope === undefined || !scope.ready) continue
          const changes = scope.changesAfter(from)
          const events = changes === undefined ? [hydrationOf(scope, filter)] : changes.flatMap((c) => c.events)
          if (events.length > 0) updates.set(key, { revision: scope.revision, events })
        }
      }
      const firsts = new Map<string, StreamUpdate & { kind: 'up-to-date' | 'hydrate' | 'changes' }>()
      for (const join of joins) {
        const scope = relay.scopes.get(join.scope.key)
        if (scope === undefined || !scope.ready) continue
        const since = scope.since(join.lastEventId)
        const kind = since === undefined ? 'hydrate' : join.lastEventId === scope.revision ? 'up-to-date' : 'changes'
        firsts.set(join.key, { revision: scope.revision, events: since ?? [hydrationOf(scope, join.scope.filter)], kind })
      }
      return { position, updates, firsts, deleted: from === undefined ? [] : relay.revokedAfter(from), heldBack: false }
    },
  }
}

/** The frontend engines' source at a relay: the client scope covering the frontend token, its features within the token's projects. */
export function relayEngineSource (relay: Relay): EngineSource {
  const covering = (token: TokenScope) => {
    const scope = relay.tokens.covering(token)
    if (scope === undefined) {
      throw new ApiError('MissingClientTokenError', `No client token this relay serves covers environment ${token.environments[0]} and projects ${token.projects.join(', ')}: add one to TOKENS`)
    }
    return scope
  }
  return {
    version: async (token) => covering(token).tag,
    definitions: async (token): Promise<EvaluatorState> => filterSnapshot(covering(token).snapshot(), clientFilter(token, {})),
  }
}
