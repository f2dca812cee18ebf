import type { TokenScope } from '../access/scope.js'
import type { ClientFeature, ClientFeatures, ClientSegment, ClientStrategy } from './client.schemas.js'
import type { ClientSnapshot } from './client.service.js'
import { type ClientRequest, clientFilter, outsideScope } from './client.service.js'
import type { ClientFilter } from './client.store.js'

/*
 * The client API's answer made from features held in memory (a relay's), as the database
 * gives it on the server: the features of the filter in the order held, the segments their
 * strategies use (by id), and for SDKs before client specification 4.2.0 each strategy's
 * segment constraints inlined after its own.
 */

/** Whether the filter serves a feature. */
export const serves = (filter: ClientFilter, feature: Pick<ClientFeature, 'name' | 'project'>) =>
  (filter.projects === undefined || filter.projects.includes(feature.project)) &&
  (filter.project === undefined || filter.project === feature.project) &&
  (filter.namePrefix === undefined || feature.name.startsWith(filter.namePrefix))

/** The ids of the segments the strategies of `features` use, ascending. */
export function usedSegmentIds (features: readonly ClientFeature[]): number[] {
  const ids = new Set<number>()
  for (const feature of features) for (const strategy of feature.strategies) for (const id of strategy.segments ?? []) ids.add(id)
  return [...ids].sort((a, b) => a - b)
}

/** The features of `filter` in a snapshot, with the segments they use (top-level form: strategies name their segments). */
export function filterSnapshot (snapshot: ClientSnapshot, filter: ClientFilter): ClientSnapshot {
  if (outsideScope(filter)) return { features: [], segments: [] }
  const all = filter.projects === undefined && filter.project === undefined && filter.namePrefix === undefined
  const features = all ? snapshot.features : snapshot.features.filter((f) => serves(filter, f))
  const byId = new Map(snapshot.segments.map((s) => [s.id, s]))
  const segments = usedSegmentIds(features).flatMap((id) => byId.get(id) ?? [])
  return { features, segments }
}

/** A strategy for SDKs that read segments inlined: their constraints after its own, no ids. */
function inlined (strategy: ClientStrategy, segments: Map<number, ClientSegment>): ClientStrategy {
  const { segments: ids = [], ...rest } = strategy
  return { ...rest, constraints: [...strategy.constraints, ...ids.flatMap((id) => segments.get(id)?.constraints ?? [])] }
}

/** The answer of GET /api/client/features for a token and request, from a snapshot of its scope held in memory. */
export function clientAnswer (snapshot: ClientSnapshot, token: TokenScope, request: ClientRequest): ClientFeatures {
  const filter = clientFilter(token, request)
  const { features, segments } = filterSnapshot(snapshot, filter)
  const { environment, projects, namePrefix, project } = filter
  const byId = new Map(segments.map((s) => [s.id, s]))
  return {
    version: 2,
    features: request.segments ? features : features.map((f) => ({ ...f, strategies: f.strategies.map((s) => inlined(s, byId)) })),
    ...(request.segments && { segments }),
    query: {
      environment,
      inlineSegmentConstraints: !request.segments,
      ...(projects !== undefined && { projects: [...projects] }),
      ...(project !== undefined && { project }),
      ...(namePrefix !== undefined && { namePrefix }),
    },
  }
}
