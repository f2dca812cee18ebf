/**
 * The event log's search, as Unleash's `GET /api/admin/search/events` reads its query: each
 * filter is `OPERATOR:value[,value…]` (IS, IS_ANY_OF, and their negations IS_NOT, IS_NONE_OF),
 * dates `IS:yyyy-MM-dd`. Pure: what the query asks, checked and bounded; the store turns it
 * into SQL.
 */
import { invalidField } from '../errors.js'

/** One filter: the values asked for, or (negated) refused. */
export interface ValueFilter {
  values: string[]
  negated: boolean
}

export interface EventSearch {
  ids?: ValueFilter
  /** The writing transaction's id: the events of one change. */
  groupIds?: ValueFilter
  features?: ValueFilter
  projects?: ValueFilter
  types?: ValueFilter
  environments?: ValueFilter
  /** Creator ids (event-creators), or a creator's name (an API token's). */
  creators?: ValueFilter
  /** Created at or after this instant. */
  from?: Date
  /** Created before this instant (the day after `to`). */
  before?: Date
  /** Free text, found in the event's data or preData. */
  text?: string
  limit: number
  offset: number
}

/** The query string of the search, as the route's schema has checked it (strings, bounded). */
export interface EventSearchQuery {
  query?: string
  id?: string
  groupId?: string
  feature?: string
  project?: string
  type?: string
  createdBy?: string
  environment?: string
  from?: string
  to?: string
  offset?: number
  limit?: number
}

export const MAX_FILTER_VALUES = 100

/** The creator id of events made by the server itself, and of those made by API tokens (as Unleash's ids). */
export const SYSTEM_CREATOR = -1337
export const TOKEN_CREATOR = -42

const OPERATORS: Record<string, boolean> = { IS: false, IS_ANY_OF: false, IS_NOT: true, IS_NONE_OF: true }

const FILTER = /^(IS|IS_ANY_OF|IS_NOT|IS_NONE_OF):(.+)$/s
const DAY = /^IS:(\d{4}-\d{2}-\d{2})$/

function valueFilter (name: string, text: string | undefined, isValue: (v: string) => boolean = () => true): ValueFilter | undefined {
  if (text === undefined) return undefined
  const match = FILTER.exec(text)
  if (!match) throw invalidField(`/query/${name}`, 'must be OPERATOR:value, with IS, IS_ANY_OF (values separated by commas), IS_NOT or IS_NONE_OF, such as IS:default')
  const values = [...new Set(match[2]!.split(',').map((v) => v.trim()).filter((v) => v !== ''))]
  if (values.length === 0) throw invalidField(`/query/${name}`, 'must name at least one value after the operator')
  if (values.length > MAX_FILTER_VALUES) throw invalidField(`/query/${name}`, `may name at most ${MAX_FILTER_VALUES} values`)
  const wrong = values.find((v) => !isValue(v))
  if (wrong !== undefined) throw invalidField(`/query/${name}`, `names ${wrong}, which is not an id (an integer)`)
  return { values, negated: OPERATORS[match[1]!]! }
}

function day (name: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined
  const match = DAY.exec(text)
  const date = match ? new Date(`${match[1]}T00:00:00Z`) : undefined
  if (date === undefined || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== match![1]) {
    throw invalidField(`/query/${name}`, 'must be IS:yyyy-MM-dd, a day (UTC), such as IS:2024-01-31')
  }
  return date
}

const isId = (v: string) => /^\d{1,18}$/.test(v)

/** What a search asks, checked: 400 naming the parameter that is not in Unleash's form. */
export function eventSearch (query: EventSearchQuery): EventSearch {
  const to = day('to', query.to)
  return {
    ids: valueFilter('id', query.id, isId),
    groupIds: valueFilter('groupId', query.groupId, isId),
    features: valueFilter('feature', query.feature),
    projects: valueFilter('project', query.project),
    types: valueFilter('type', query.type),
    environments: valueFilter('environment', query.environment),
    creators: valueFilter('createdBy', query.createdBy),
    from: day('from', query.from),
    before: to && new Date(to.getTime() + 24 * 60 * 60 * 1000),
    text: query.query === undefined || query.query.trim() === '' ? undefined : query.query.trim(),
    limit: query.limit ?? 50,
    offset: query.offset ?? 0,
  }
}

/** The text of a LIKE pattern that finds `text` anywhere: its %, _ and \ taken literally. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
