// The flag list's filters: they live in the address, so that a filtered list can be bookmarked
// and shared, and they become a feature search (GET /api/admin/search/features), so that the
// server finds and orders the flags and the page reads only the rows it shows.

export const SORT_OPTIONS = [
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: '-created', label: 'Newest first' },
  { value: 'created', label: 'Oldest first' },
  { value: 'type', label: 'Type' },
  { value: '-seen', label: 'Last seen by SDKs' },
]

/** What the Stale filter offers: stale (marked), potentially stale (older than its type's lifetime), neither. */
export const STALE_OPTIONS = [
  { value: '', label: 'Any' },
  { value: 'stale', label: 'Stale' },
  { value: 'potentially-stale', label: 'Potentially stale' },
  { value: 'active', label: 'Neither' },
]

export interface Filters {
  q: string
  type: string
  stage: string
  tag: string
  sort: string
  /** `environment:on` or `environment:off`; empty: any. */
  state: string
  /** One of STALE_OPTIONS' values. */
  stale: string
}

export const NO_FILTERS: Filters = { q: '', type: '', stage: '', tag: '', sort: 'name', state: '', stale: '' }

export function readFilters (search: string): Filters {
  const params = new URLSearchParams(search)
  const state = params.get('state') ?? ''
  const stale = params.get('stale') ?? ''
  return {
    q: params.get('q') ?? '',
    type: params.get('type') ?? '',
    stage: params.get('stage') ?? '',
    tag: params.get('tag') ?? '',
    sort: SORT_OPTIONS.some((s) => s.value === params.get('sort')) ? params.get('sort')! : 'name',
    state: /^[^:]+:(on|off)$/.test(state) ? state : '',
    stale: STALE_OPTIONS.some((s) => s.value === stale) ? stale : '',
  }
}

export function writeFilters (f: Filters): string {
  const params = new URLSearchParams()
  if (f.q) params.set('q', f.q)
  if (f.type) params.set('type', f.type)
  if (f.stage) params.set('stage', f.stage)
  if (f.tag) params.set('tag', f.tag)
  if (f.state) params.set('state', f.state)
  if (f.stale) params.set('stale', f.stale)
  if (f.sort !== 'name') params.set('sort', f.sort)
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** How many filters (beside the search and the sort) are on. */
export const activeFilters = (f: Filters) => [f.type, f.stage, f.tag, f.state, f.stale].filter(Boolean).length

const SORTS: Record<string, { sortBy: string; sortOrder: 'asc' | 'desc' }> = {
  name: { sortBy: 'name', sortOrder: 'asc' },
  '-name': { sortBy: 'name', sortOrder: 'desc' },
  created: { sortBy: 'createdAt', sortOrder: 'asc' },
  '-created': { sortBy: 'createdAt', sortOrder: 'desc' },
  type: { sortBy: 'type', sortOrder: 'asc' },
  '-seen': { sortBy: 'lastSeenAt', sortOrder: 'desc' },
}

/**
 * The feature search the filters ask for, in a project, without its page (offset and limit):
 * the search field is a substring of the name or description, a tag one the flag has, a state
 * one environment's.
 */
export function searchQuery (project: string, f: Filters): string {
  const params = new URLSearchParams({ project: `IS:${project}` })
  if (f.q.trim()) params.set('query', f.q.trim())
  if (f.type) params.set('type', `IS:${f.type}`)
  if (f.stage) params.set('lifecycle', `IS:${f.stage}`)
  if (f.tag) params.set('tag', `INCLUDE:${f.tag}`)
  if (f.state) {
    const [environment, on] = f.state.split(':')
    params.append('status', `${environment}:${on === 'on' ? 'enabled' : 'disabled'}`)
  }
  if (f.stale) params.set('state', `IS:${f.stale}`)
  const sort = SORTS[f.sort] ?? SORTS.name!
  params.set('sortBy', sort.sortBy)
  params.set('sortOrder', sort.sortOrder)
  return params.toString()
}

/** The state filter's choices: on and off in each environment. */
export const stateOptions = (environments: string[]) => [
  { value: '', label: 'On or off anywhere' },
  ...environments.flatMap((env) => [{ value: `${env}:on`, label: `On in ${env}` }, { value: `${env}:off`, label: `Off in ${env}` }]),
]
