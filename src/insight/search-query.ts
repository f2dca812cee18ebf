/**
 * Feature search's query grammar, as Unleash 8.2 reads it: each filter is `OPERATOR:values`
 * (values comma-separated and trimmed), and which operators a filter accepts is fixed by the
 * parameter's pattern (search.schemas.ts). This module turns the validated query string into a
 * plain description of the search (FeatureSearch); the store turns that into SQL. No Fastify, no
 * Kysely: a pure rule, unit-tested on its own.
 */
import { invalidField } from '../errors.js'

/** Feature states a `state` filter picks from: stale, potentially stale (and not stale), neither. */
export type StaleState = 'stale' | 'potentially-stale' | 'active'
export const STALE_STATES: readonly StaleState[] = ['stale', 'potentially-stale', 'active']

/** `IS`/`IS_ANY_OF` keep the values, `IS_NOT`/`IS_NONE_OF` leave them out. */
export interface ValueFilter {
  include: boolean
  values: string[]
}

/**
 * `INCLUDE`/`INCLUDE_ANY_OF`: has any of them; `DO_NOT_INCLUDE`/`EXCLUDE_IF_ANY_OF`: has none;
 * `INCLUDE_ALL_OF`: has all; `EXCLUDE_ALL`: lacks at least one.
 */
export type ListMatch = 'any' | 'none' | 'all' | 'not-all'

export interface TagFilter {
  match: ListMatch
  tags: { type: string; value: string }[]
}

export interface SegmentFilter {
  match: ListMatch
  names: string[]
}

export interface DateFilter {
  before: boolean
  /** Midnight UTC of the day given. */
  at: Date
}

/**
 * Which features the lifecycle and archived filters let through: where archivedAt is set or not
 * (or either), whether the current stage is (or is not) one of `stage.names`, and whether an
 * archived feature passes whatever its stage (`orArchived`).
 */
export interface LifecycleFilter {
  archivedAt: 'set' | 'null' | 'any'
  stage?: { in: boolean; names: string[] }
  orArchived: boolean
}

/** A user id, or -42 for features created with an API token (as Unleash names its admin token user). */
export const TOKEN_CREATOR_ID = -42

export type SortKey =
  | { by: 'createdAt' | 'name' | 'type' | 'stale' | 'project' | 'lastSeenAt' }
  | { by: 'environment'; environment: string }

export interface FeatureSearch {
  /** Substrings of the name or description, any of them, case-insensitive; empty: no filter. */
  query: string[]
  project?: ValueFilter
  type?: ValueFilter
  /** User ids (TOKEN_CREATOR_ID: created with an API token). */
  createdBy?: { include: boolean; ids: number[] }
  /** The states let through; undefined: every state. */
  state?: StaleState[]
  lifecycle: LifecycleFilter
  tag?: TagFilter
  segment?: SegmentFilter
  createdAt?: DateFilter
  lastSeenAt?: DateFilter
  /** `environment:enabled|disabled` pairs, any of them (per environment row, as Unleash). */
  status: { environment: string; enabled: boolean }[]
  /** Favourites are not kept here: `favorite=IS:true` finds nothing. */
  onlyFavorites: boolean
  offset: number
  limit: number
  sort: SortKey
  order: 'asc' | 'desc'
}

/** What the route received, after its schema checked every pattern. */
export interface SearchParams {
  query?: string
  project?: string
  type?: string
  tag?: string
  segment?: string
  state?: string
  lifecycle?: string
  status?: string[]
  createdAt?: string
  lastSeenAt?: string
  createdBy?: string
  archived?: string
  favorite?: string
  favoritesFirst?: string
  offset?: string
  limit?: string
  sortBy?: string
  sortOrder?: 'asc' | 'desc'
}

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 100

const OPERATOR = /^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF|INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL|IS_BEFORE|IS_ON_OR_AFTER):(.+)$/s

/** `OPERATOR:a, b` → the operator and the trimmed values; undefined when nothing follows the colon. */
export function splitOperator (text: string): { operator: string; values: string[] } | undefined {
  const match = OPERATOR.exec(text)
  if (!match) return undefined
  return { operator: match[1]!, values: match[2]!.split(',').map((v) => v.trim()) }
}

const valueFilter = (text: string | undefined): ValueFilter | undefined => {
  const parsed = text === undefined ? undefined : splitOperator(text)
  if (!parsed) return undefined
  return { include: parsed.operator === 'IS' || parsed.operator === 'IS_ANY_OF', values: [...new Set(parsed.values)] }
}

const LIST_MATCH: Record<string, ListMatch> = {
  INCLUDE: 'any',
  INCLUDE_ANY_OF: 'any',
  DO_NOT_INCLUDE: 'none',
  EXCLUDE_IF_ANY_OF: 'none',
  INCLUDE_ALL_OF: 'all',
  EXCLUDE_ALL: 'not-all',
}

/** A day as the date filters give it (`YYYY-MM-DD`): a real one, or 400 naming the parameter. */
function day (parameter: string, text: string): Date {
  const at = new Date(`${text}T00:00:00.000Z`)
  if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text) {
    throw invalidField(`/query/${parameter}`, `${text} is not a date (YYYY-MM-DD)`)
  }
  return at
}

const dateFilter = (parameter: string, text: string | undefined): DateFilter | undefined => {
  const parsed = text === undefined ? undefined : splitOperator(text)
  if (!parsed) return undefined
  return { before: parsed.operator === 'IS_BEFORE', at: day(parameter, parsed.values[0]!) }
}

/**
 * The states a `state` filter lets through. Without `potentially-stale` among the values it
 * filters on stale alone (`active` is not stale, any other value stale); with it, on the three
 * states (values other than the three names are ignored then).
 */
export function staleStates (filter: ValueFilter): StaleState[] {
  const keep = (states: StaleState[]) => (filter.include ? states : STALE_STATES.filter((s) => !states.includes(s)))
  if (!filter.values.includes('potentially-stale')) {
    const staleWanted = filter.values.some((v) => v !== 'active')
    const activeWanted = filter.values.includes('active')
    return keep([...(staleWanted ? ['stale' as const] : []), ...(activeWanted ? ['potentially-stale' as const, 'active' as const] : [])])
  }
  const named = new Set(filter.values.filter((v): v is StaleState => (STALE_STATES as string[]).includes(v)))
  if (named.size === 3) return keep([...STALE_STATES])
  if (named.size === 1) return keep(['potentially-stale'])
  if (named.has('stale')) return keep(['stale', 'potentially-stale'])
  return keep(['potentially-stale', 'active'])
}

/**
 * The lifecycle filter together with the archived view (`archived=IS:true`), as Unleash combines
 * them: the stage `archived` stands for archived features, the other stages for features that
 * are not archived.
 */
export function lifecycleFilter (filter: ValueFilter | undefined, archivedView: boolean): LifecycleFilter {
  if (!filter) return { archivedAt: archivedView ? 'set' : 'null', orArchived: false }
  const withArchived = filter.values.includes('archived')
  const names = filter.values.filter((v) => v !== 'archived')
  if (!filter.include) {
    if (archivedView && !withArchived) return { archivedAt: 'set', orArchived: false }
    return { archivedAt: 'null', ...(names.length > 0 && { stage: { in: false, names } }), orArchived: false }
  }
  if (archivedView) {
    return { archivedAt: 'set', ...(!withArchived && names.length > 0 && { stage: { in: true, names } }), orArchived: false }
  }
  if (!withArchived) return { archivedAt: 'null', ...(names.length > 0 && { stage: { in: true, names } }), orArchived: false }
  if (names.length === 0) return { archivedAt: 'set', orArchived: false }
  return { archivedAt: 'any', stage: { in: true, names }, orArchived: true }
}

function sortKey (sortBy: string | undefined): SortKey {
  if (sortBy?.startsWith('environment:')) return { by: 'environment', environment: sortBy.split(':')[1] ?? '' }
  if (sortBy === 'name' || sortBy === 'type' || sortBy === 'stale' || sortBy === 'project' || sortBy === 'lastSeenAt') return { by: sortBy }
  return { by: 'createdAt' }
}

/** A number as Unleash reads `offset` and `limit`: anything else than a number in range is the default. */
const numberOr = (text: string | undefined, fallback: number, accept: (n: number) => boolean) => {
  const n = Number(text ?? Number.NaN)
  return text !== undefined && text.trim() !== '' && Number.isInteger(n) && accept(n) ? n : fallback
}

/** The search a validated query string asks for. */
export function parseSearch (params: SearchParams): FeatureSearch {
  const state = valueFilter(params.state)
  const createdBy = valueFilter(params.createdBy)
  const tag = params.tag === undefined ? undefined : splitOperator(params.tag)
  const segment = params.segment === undefined ? undefined : splitOperator(params.segment)
  const favorite = params.favorite === undefined ? undefined : splitOperator(params.favorite)
  return {
    query: (params.query ?? '').split(',').map((q) => q.trim()).filter((q) => q !== ''),
    project: valueFilter(params.project),
    type: valueFilter(params.type),
    ...(createdBy && {
      createdBy: {
        include: createdBy.include,
        ids: createdBy.values.map((v) => {
          if (!/^-?\d{1,10}$/.test(v)) throw invalidField('/query/createdBy', `${v} is not a user id`)
          return Number(v)
        }),
      },
    }),
    ...(state && { state: staleStates(state) }),
    lifecycle: lifecycleFilter(valueFilter(params.lifecycle), params.archived === 'IS:true'),
    ...(tag && {
      tag: {
        match: LIST_MATCH[tag.operator]!,
        tags: uniqueTags(tag.values.map((v) => {
          const colon = v.indexOf(':')
          return { type: v.slice(0, colon).trim(), value: v.slice(colon + 1).trim() }
        })),
      },
    }),
    ...(segment && { segment: { match: LIST_MATCH[segment.operator]!, names: [...new Set(segment.values)] } }),
    createdAt: dateFilter('createdAt', params.createdAt),
    lastSeenAt: dateFilter('lastSeenAt', params.lastSeenAt),
    status: (params.status ?? []).flatMap((s) => {
      const parts = s.split(':')
      return parts.length === 2 && (parts[1] === 'enabled' || parts[1] === 'disabled') ? [{ environment: parts[0]!, enabled: parts[1] === 'enabled' }] : []
    }),
    onlyFavorites: favorite !== undefined && favorite.values.includes('true') && !favorite.values.includes('false'),
    offset: numberOr(params.offset, 0, (n) => n > 0),
    limit: numberOr(params.limit, DEFAULT_LIMIT, (n) => n > 0 && n <= MAX_LIMIT),
    sort: sortKey(params.sortBy),
    order: params.sortOrder ?? 'asc',
  }
}

const uniqueTags = (tags: { type: string; value: string }[]) =>
  tags.filter((t, i) => tags.findIndex((u) => u.type === t.type && u.value === t.value) === i)

/** `%`, `_` and `\` taken literally in a LIKE pattern: the query is a plain substring. */
export const likeSubstring = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
