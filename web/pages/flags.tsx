import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { memo, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { post, seg } from '../api'
import { useAnnounce } from '../announce'
import { Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, SelectField, submitting, TextArea, TextField, useTitle } from '../components/ui'
import { keys, useFeatures, useProjects } from '../queries'
import { useSession } from '../session'
import type { FeatureSummary, Stage } from '../types'

export const FLAG_TYPES = [
  { value: 'release', label: 'Release' },
  { value: 'experiment', label: 'Experiment' },
  { value: 'operational', label: 'Operational' },
  { value: 'kill-switch', label: 'Kill switch' },
  { value: 'permission', label: 'Permission' },
]

export const STAGE_LABELS: Record<Stage, string> = {
  initial: 'Initial',
  'pre-live': 'Pre-live',
  live: 'Live',
  completed: 'Completed',
  archived: 'Archived',
}

const SORTS = [
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: '-created', label: 'Newest first' },
  { value: 'created', label: 'Oldest first' },
  { value: 'type', label: 'Type' },
]

interface Filters {
  q: string
  type: string
  stage: string
  tag: string
  sort: string
  /** environment name → 'on' | 'off' */
  state: Record<string, string>
}

const EMPTY: Filters = { q: '', type: '', stage: '', tag: '', sort: 'name', state: {} }

/** The filters live in the address, so that a filtered list can be bookmarked and shared. */
function readFilters (search: string): Filters {
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
    sort: SORTS.some((s) => s.value === params.get('sort')) ? params.get('sort')! : 'name',
    state,
  }
}

function writeFilters (f: Filters): string {
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

const tagKey = (t: { type: string; value: string }) => `${t.type}:${t.value}`

/** The flags that pass the filters, sorted: plain work over an array, cheap at 5,000. */
export function selectFlags (all: FeatureSummary[], f: Filters): FeatureSummary[] {
  const q = f.q.trim().toLowerCase()
  const states = Object.entries(f.state).filter(([, v]) => v)
  const out = all.filter((flag) => {
    if (q && !flag.name.toLowerCase().includes(q) && !(flag.description ?? '').toLowerCase().includes(q)) return false
    if (f.type && flag.type !== f.type) return false
    if (f.stage && flag.lifecycle?.stage !== f.stage) return false
    if (f.tag && !flag.tags?.some((t) => tagKey(t) === f.tag)) return false
    for (const [env, want] of states) {
      const e = flag.environments?.find((x) => x.name === env)
      if (!e || e.enabled !== (want === 'on')) return false
    }
    return true
  })
  const byName = (a: FeatureSummary, b: FeatureSummary) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const sorters: Record<string, (a: FeatureSummary, b: FeatureSummary) => number> = {
    name: byName,
    '-name': (a, b) => byName(b, a),
    created: (a, b) => a.createdAt.localeCompare(b.createdAt) || byName(a, b),
    '-created': (a, b) => b.createdAt.localeCompare(a.createdAt) || byName(a, b),
    type: (a, b) => a.type.localeCompare(b.type) || byName(a, b),
  }
  return out.sort(sorters[f.sort] ?? byName)
}

export function FlagList ({ project }: { project: string }) {
  const projects = useProjects()
  const name = projects.data?.find((p) => p.id === project)?.name ?? project
  useTitle(`Flags of ${name}`)
  const features = useFeatures(project)
  const session = useSession()
  const [creating, setCreating] = useState(false)
  const [filters, setFilters] = useState<Filters>(() => readFilters(window.location.search))
  // The list follows the deferred filters: typing stays responsive while the list catches up.
  const deferred = useDeferredValue(filters)
  useEffect(() => {
    const next = `${window.location.pathname}${writeFilters(filters)}`
    if (next !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', next)
  }, [filters])

  const all = features.data ?? []
  const environments = useMemo(() => [...new Set(all.flatMap((f) => f.environments?.map((e) => e.name) ?? []))].sort(), [all])
  const tags = useMemo(() => [...new Set(all.flatMap((f) => f.tags?.map(tagKey) ?? []))].sort(), [all])
  const visible = useMemo(() => selectFlags(all, deferred), [all, deferred])
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }))
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY)
  const active = [filters.type, filters.stage, filters.tag, ...Object.values(filters.state)].filter(Boolean).length
  const [wide] = useState(() => window.matchMedia('(min-width: 700px)').matches || active > 0)

  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / {name}</p>
      <PageHeading actions={session.can('change-flags') && <button type='button' onClick={() => setCreating(true)}>New flag</button>}>
        Flags
      </PageHeading>
      <div role='search' aria-label='Find flags'>
        <div className='field'>
          <label htmlFor='flag-search'>Search flags</label>
          <input id='flag-search' type='search' value={filters.q} onChange={(e) => set({ q: e.target.value })} placeholder='Name or description' autoComplete='off' />
        </div>
        {/* Open on wide screens; on a phone the list comes first and the filters fold away. */}
        <details className='more-filters' open={wide}>
          <summary>Filter and sort{active > 0 ? ` (${active} ${active === 1 ? 'filter' : 'filters'} on)` : ''}</summary>
          <div className='filters'>
            <SelectField label='Type' value={filters.type} onChange={(type) => set({ type })} options={[{ value: '', label: 'Any type' }, ...FLAG_TYPES]} />
            <SelectField
              label='Lifecycle stage'
              value={filters.stage}
              onChange={(stage) => set({ stage })}
              options={[{ value: '', label: 'Any stage' }, ...Object.entries(STAGE_LABELS).filter(([s]) => s !== 'archived').map(([value, label]) => ({ value, label }))]}
            />
            {environments.map((env) => (
              <SelectField
                key={env}
                label={`State in ${env}`}
                value={filters.state[env] ?? ''}
                onChange={(value) => set({ state: { ...filters.state, [env]: value } })}
                options={[{ value: '', label: 'On or off' }, { value: 'on', label: 'On' }, { value: 'off', label: 'Off' }]}
              />
            ))}
            {tags.length > 0 && (
              <SelectField label='Tag' value={filters.tag} onChange={(tag) => set({ tag })} options={[{ value: '', label: 'Any tag' }, ...tags.map((t) => ({ value: t, label: t }))]} />
            )}
            <SelectField label='Sort by' value={filters.sort} onChange={(sort) => set({ sort })} options={SORTS} />
          </div>
        </details>
      </div>
      <QueryStatus query={features} what='Loading flags' />
      {features.data && (
        <>
          <div className='list-summary'>
            <p role='status'>{visible.length === all.length ? `${all.length} flags` : `Showing ${visible.length} of ${all.length} flags`}</p>
            {filtered && <button type='button' className='secondary outline small' onClick={() => setFilters(EMPTY)}>Clear filters</button>}
          </div>
          {all.length === 0 && <p>No flags in this project yet.{session.can('change-flags') ? ' Create the first one with “New flag”.' : ''}</p>}
          {all.length > 0 && visible.length === 0 && <p>No flag matches these filters.</p>}
          <FlagRows project={project} flags={visible} />
        </>
      )}
      <NewFlag project={project} open={creating} onClose={() => setCreating(false)} />
    </>
  )
}

/** Only the rows near the screen are in the page: 5,000 flags cost what 30 do. */
const FlagRows = memo(function FlagRows ({ project, flags }: { project: string; flags: FeatureSummary[] }) {
  const listRef = useRef<HTMLUListElement>(null)
  const virtualizer = useWindowVirtualizer({
    count: flags.length,
    estimateSize: () => 72,
    overscan: 8,
    scrollMargin: listRef.current?.offsetTop ?? 0,
    getItemKey: (i) => flags[i]!.name,
  })
  const items = virtualizer.getVirtualItems()
  return (
    <ul ref={listRef} className='flag-rows' aria-label='Flags' style={{ height: virtualizer.getTotalSize() }}>
      {items.map((item) => {
        const flag = flags[item.index]!
        return (
          <li
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            aria-setsize={flags.length}
            aria-posinset={item.index + 1}
            style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
          >
            <div className='flag-row-main'>
              <Link href={`/projects/${seg(project)}/features/${seg(flag.name)}`} className='flag-name'>{flag.name}</Link>
              {flag.description && <span className='muted description'>{flag.description}</span>}
            </div>
            <div className='flag-row-facts'>
              <span className='badge'>{FLAG_TYPES.find((t) => t.value === flag.type)?.label ?? flag.type}</span>
              {flag.lifecycle && <span className={`badge stage-${flag.lifecycle.stage}`}>{STAGE_LABELS[flag.lifecycle.stage]}</span>}
              {flag.tags?.map((t) => <span key={tagKey(t)} className='badge tag'>{tagKey(t)}</span>)}
              {flag.environments?.map((e) => (
                <span key={e.name} className={`env-state ${e.enabled ? 'on' : 'off'}`}>
                  {e.name}: {e.enabled ? 'on' : 'off'}
                </span>
              ))}
            </div>
          </li>
        )
      })}
    </ul>
  )
})

function NewFlag ({ project, open, onClose }: { project: string; open: boolean; onClose: () => void }) {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [type, setType] = useState('release')
  const client = useQueryClient()
  const announce = useAnnounce()
  const [, navigate] = useLocation()
  const create = useMutation({
    mutationFn: () => post(`/api/admin/projects/${seg(project)}/features`, { name, type, ...(description ? { description } : {}) }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.features(project) })
      announce(`Flag ${name} created`)
      onClose()
      navigate(`/projects/${seg(project)}/features/${seg(name)}`)
    },
  })
  const submit = submitting(() => create.mutate())
  return (
    <Dialog title='New flag' open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField
          label='Name'
          value={name}
          onChange={setName}
          required
          autoFocus
          hint='Unique across all projects; letters, digits and - _ . ~ (no spaces). SDKs ask for the flag by this name.'
          errors={errorsAt(create.error, '/name')}
        />
        <SelectField label='Type' value={type} onChange={setType} options={FLAG_TYPES} errors={errorsAt(create.error, '/type')} />
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(create.error, '/description')} />
        <ErrorAlert error={create.error} shownAt={['/name', '/type', '/description']} />
        <FormButtons onCancel={onClose} label='Create' busy={create.isPending} />
      </form>
    </Dialog>
  )
}
