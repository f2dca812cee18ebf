// The flag list's filters: they live in the address, so that a filtered list can be bookmarked
// and shared, and they select from the list already read (plain work over an array, cheap at
// 5,000 flags).
import type { FeatureSummary } from '../../api/types'
import { tagLabel } from '../../lib/labels'

export const SORT_OPTIONS = [
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: '-created', label: 'Newest first' },
  { value: 'created', label: 'Oldest first' },
  { value: 'type', label: 'Type' },
]

export interface Filters {
  q: string
  type: string
  stage: string
  tag: string
  sort: string
  /** environment name → 'on' | 'off' */
  state: Record<string, string>
}

export const NO_FILTERS: Filters = { q: '', type: '', stage: '', tag: '', sort: 'name', state: {} }

export function readFilters (search: string): Filters {
  const params = new URLSearchParams(search)
  const state: Record<string, string> = {}
  for (const [key, value] of params) {
    if (key.startsWith('state.') && (value === 'on' || value === 'off')) state[key.slice(6)] = value
  }
  return {
    q: params.get('q') ?? '',
    type: params.get('type') ?? '',
    stage: params.get('stage') ?? '',
    tag: params.get('tag') ?? '',
    sort: SORT_OPTIONS.some((s) => s.value === params.get('sort')) ? params.get('sort')! : 'name',
    state,
  }
}

export function writeFilters (f: Filters): string {
  const params = new URLSearchParams()
  if (f.q) params.set('q', f.q)
  if (f.type) params.set('type', f.type)
  if (f.stage) params.set('stage', f.stage)
  if (f.tag) params.set('tag', f.tag)
  if (f.sort !== 'name') params.set('sort', f.sort)
  for (const [env, value] of Object.entries(f.state)) if (value) params.set(`state.${env}`, value)
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** How many filters (beside the search and the sort) are on. */
export const activeFilters = (f: Filters) => [f.type, f.stage, f.tag, ...Object.values(f.state)].filter(Boolean).length

const byName = (a: FeatureSummary, b: FeatureSummary) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const SORTERS: Record<string, (a: FeatureSummary, b: FeatureSummary) => number> = {
  name: byName,
  '-name': (a, b) => byName(b, a),
  created: (a, b) => a.createdAt.localeCompare(b.createdAt) || byName(a, b),
  '-created': (a, b) => b.createdAt.localeCompare(a.createdAt) || byName(a, b),
  type: (a, b) => a.type.localeCompare(b.type) || byName(a, b),
}

/** The flags that pass the filters, sorted. */
export function selectFlags (all: FeatureSummary[], f: Filters): FeatureSummary[] {
  const q = f.q.trim().toLowerCase()
  const states = Object.entries(f.state).filter(([, v]) => v)
  const out = all.filter((flag) => {
    if (q && !flag.name.toLowerCase().includes(q) && !(flag.description ?? '').toLowerCase().includes(q)) return false
    if (f.type && flag.type !== f.type) return false
    if (f.stage && flag.lifecycle.stage !== f.stage) return false
    if (f.tag && !flag.tags.some((t) => tagLabel(t) === f.tag)) return false
    for (const [env, want] of states) {
      const e = flag.environments.find((x) => x.name === env)
      if (!e || e.enabled !== (want === 'on')) return false
    }
    return true
  })
  return out.sort(SORTERS[f.sort] ?? byName)
}

/** The environments and the tags the flags have, sorted: what the filters offer. */
export function choices (all: FeatureSummary[]): { environments: string[]; tags: string[] } {
  return {
    environments: [...new Set(all.flatMap((f) => f.environments.map((e) => e.name)))].sort(),
    tags: [...new Set(all.flatMap((f) => f.tags.map(tagLabel)))].sort(),
  }
}
