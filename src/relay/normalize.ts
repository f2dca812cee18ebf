import type { ClientFeature, ClientSegment, ClientStrategy } from '../client/client.schemas.js'
import type { DeltaEvent } from '../streaming/streaming.schemas.js'
import type { Variant } from '../variants/variants.schemas.js'

/*
 * What an upstream sends, in the client API's shape this relay serves: the server's own answer
 * passes unchanged; Unleash's loses what SDKs do not read (descriptions, strategy ids, titles,
 * sort orders, meta) and gains the members it leaves out when empty (dependencies, segment
 * ids). Anything that is not a feature, strategy or segment is refused: the relay then keeps
 * serving what it held (the upstream is counted as failing).
 */

export class UpstreamShapeError extends Error {
  override name = 'UpstreamShapeError'
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

function need<T> (ok: boolean, value: T, what: string): T {
  if (!ok) throw new UpstreamShapeError(`the upstream sent ${what} that is not one`)
  return value
}

const text = (value: unknown, what: string) => need(typeof value === 'string', value as string, what)
const list = (value: unknown, what: string): unknown[] => (value === undefined || value === null ? [] : need(Array.isArray(value), value as unknown[], what))

function strategy (raw: unknown): ClientStrategy {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent a strategy that is not an object')
  const parameters = raw.parameters === undefined || raw.parameters === null ? {} : need(isObject(raw.parameters), raw.parameters as Record<string, string>, 'strategy parameters')
  return {
    name: text(raw.name, 'a strategy name'),
    constraints: list(raw.constraints, 'constraints'),
    parameters,
    variants: list(raw.variants, 'strategy variants'),
    segments: list(raw.segments, 'segment ids').map((id) => need(Number.isInteger(id), id as number, 'a segment id')),
  }
}

function dependency (raw: unknown): ClientFeature['dependencies'][number] {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent a dependency that is not an object')
  const enabled = raw.enabled === undefined ? true : need(typeof raw.enabled === 'boolean', raw.enabled as boolean, 'a dependency state')
  return {
    feature: text(raw.feature, 'a parent name'),
    enabled,
    ...(raw.variants !== undefined && raw.variants !== null && { variants: list(raw.variants, 'dependency variants').map((v) => text(v, 'a variant name')) }),
  }
}

/** A feature as the client API serves it. */
export function normalizeFeature (raw: unknown): ClientFeature {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent a feature that is not an object')
  const flag = (value: unknown, fallback: boolean, what: string) => (value === undefined || value === null ? fallback : need(typeof value === 'boolean', value as boolean, what))
  return {
    name: text(raw.name, 'a feature name'),
    type: raw.type === undefined || raw.type === null ? 'release' : text(raw.type, 'a feature type'),
    project: raw.project === undefined || raw.project === null ? 'default' : text(raw.project, 'a project'),
    enabled: flag(raw.enabled, false, 'a feature state'),
    stale: flag(raw.stale, false, 'a stale mark'),
    impressionData: flag(raw.impressionData, false, 'an impression data mark'),
    strategies: list(raw.strategies, 'strategies').map(strategy),
    variants: list(raw.variants, 'variants').map((v) => need(isObject(v), v as unknown as Variant, 'a variant')),
    dependencies: list(raw.dependencies, 'dependencies').map(dependency),
  }
}

export function normalizeSegment (raw: unknown): ClientSegment {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent a segment that is not an object')
  return {
    id: need(Number.isInteger(raw.id), raw.id as number, 'a segment id'),
    name: raw.name === undefined || raw.name === null ? '' : text(raw.name, 'a segment name'),
    constraints: list(raw.constraints, 'segment constraints'),
  }
}

/** The client API's answer (GET /api/client/features, segments at the top level). */
export function normalizeAnswer (raw: unknown): { features: ClientFeature[]; segments: ClientSegment[]; revisionId: bigint | undefined } {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent an answer that is not an object')
  const meta = isObject(raw.meta) ? raw.meta : {}
  const revisionId = typeof meta.revisionId === 'number' && Number.isSafeInteger(meta.revisionId) && meta.revisionId > 0 ? BigInt(meta.revisionId) : undefined
  return { features: list(raw.features, 'features').map(normalizeFeature), segments: list(raw.segments, 'segments').map(normalizeSegment), revisionId }
}

/** The events of a streamed message (`{events: [...]}`), each in the client API's shape. */
export function normalizeEvents (raw: unknown): DeltaEvent[] {
  if (!isObject(raw)) throw new UpstreamShapeError('the upstream sent a message that is not an object')
  return list(raw.events, 'events').map((event): DeltaEvent => {
    if (!isObject(event)) throw new UpstreamShapeError('the upstream sent an event that is not an object')
    const eventId = need(Number.isSafeInteger(event.eventId) && (event.eventId as number) >= 1, event.eventId as number, 'an event id')
    switch (event.type) {
      case 'hydration':
        return { type: 'hydration', eventId, features: list(event.features, 'features').map(normalizeFeature), segments: list(event.segments, 'segments').map(normalizeSegment) }
      case 'feature-updated':
        return { type: 'feature-updated', eventId, feature: normalizeFeature(event.feature) }
      case 'feature-removed':
        return { type: 'feature-removed', eventId, featureName: text(event.featureName, 'a feature name'), project: typeof event.project === 'string' ? event.project : '' }
      case 'segment-updated':
        return { type: 'segment-updated', eventId, segment: normalizeSegment(event.segment) }
      case 'segment-removed':
        return { type: 'segment-removed', eventId, segmentId: need(Number.isInteger(event.segmentId), event.segmentId as number, 'a segment id') }
      default:
        throw new UpstreamShapeError(`the upstream sent an event of an unknown type (${String(event.type).slice(0, 50)})`)
    }
  })
}
