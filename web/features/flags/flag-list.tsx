import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { memo, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { isPotentiallyStale } from '../../../src/vocabulary/staleness'
import { seg } from '../../api/client'
import { useAllTags, useEnvironments, useFeatureTypes } from '../../api/reads'
import type { SearchedFlag } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { errorsAt, QueryStatus } from '../../components/feedback'
import { SelectField, TextArea, TextField } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { FLAG_TYPE_OPTIONS, flagTypeLabel, LISTED_STAGE_OPTIONS, STAGE_LABELS, tagLabel } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { flagCount, flagSearch, PAGE, useCreateFlag } from './api'
import { activeFilters, type Filters, NO_FILTERS, readFilters, searchQuery, SORT_OPTIONS, STALE_OPTIONS, stateOptions, writeFilters } from './filters'

/**
 * A project's flags, found by feature search: the server filters, orders and pages them, and
 * the page reads the rows as they scroll into view. The filters are kept in the address.
 */
export function FlagList ({ project }: { project: string }) {
  const session = useSession()
  const [filters, setFilters] = useState<Filters>(() => readFilters(window.location.search))
  // The list follows the deferred filters: typing stays responsive while the list catches up.
  const deferred = useDeferredValue(filters)
  useEffect(() => {
    const next = `${window.location.pathname}${writeFilters(filters)}`
    if (next !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', next)
  }, [filters])

  const found = useInfiniteQuery({ ...flagSearch(project, searchQuery(project, deferred)), placeholderData: keepPreviousData })
  const narrowed = activeFilters(deferred) > 0 || deferred.q.trim() !== ''
  // How many flags the project has, whatever the filters (read only while some are on).
  const all = useQuery({ ...flagCount(project), enabled: narrowed })
  const environments = useEnvironments()
  const tags = useAllTags()
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }))
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS)
  const active = activeFilters(filters)
  const [wide] = useState(() => window.matchMedia('(min-width: 700px)').matches || active > 0)
  const flags = useMemo(() => found.data?.pages.flatMap((p) => p.features) ?? [], [found.data])
  const total = found.data?.pages[0]?.total ?? 0
  const unfiltered = narrowed ? all.data : total

  return (
    <>
      <div role='search' aria-label='Find flags'>
        <div className='field'>
          <label htmlFor='flag-search'>Search flags</label>
          <input id='flag-search' type='search' value={filters.q} onChange={(e) => set({ q: e.target.value })} placeholder='Name or description' autoComplete='off' />
        </div>
        {/* Open on wide screens; on a phone the list comes first and the filters fold away. */}
        <details className='more-filters' open={wide}>
          <summary>Filter and sort{active > 0 ? ` (${active} ${active === 1 ? 'filter' : 'filters'} on)` : ''}</summary>
          <div className='filters'>
            <SelectField label='Type' value={filters.type} onChange={(type) => set({ type })} options={[{ value: '', label: 'Any type' }, ...FLAG_TYPE_OPTIONS]} />
            <SelectField label='Lifecycle stage' value={filters.stage} onChange={(stage) => set({ stage })} options={[{ value: '', label: 'Any stage' }, ...LISTED_STAGE_OPTIONS]} />
            {/* Drawn again once the environments arrive: a select shows its value only among the options it had then (a reloaded ?state=…). */}
            <SelectField key={environments.data ? 'environments' : 'loading'} label='State' value={filters.state} onChange={(state) => set({ state })} options={stateOptions((environments.data ?? []).map((e) => e.name))} />
            <SelectField label='Stale' value={filters.stale} onChange={(stale) => set({ stale })} options={STALE_OPTIONS} hint='Potentially stale: not marked stale, and older than its type is expected to live' />
            {(tags.data?.length ?? 0) > 0 && (
              <SelectField label='Tag' value={filters.tag} onChange={(tag) => set({ tag })} options={[{ value: '', label: 'Any tag' }, ...(tags.data ?? []).map((t) => ({ value: tagLabel(t), label: tagLabel(t) })).sort((a, b) => a.label.localeCompare(b.label))]} />
            )}
            <SelectField label='Sort by' value={filters.sort} onChange={(sort) => set({ sort })} options={SORT_OPTIONS} />
          </div>
        </details>
      </div>
      <QueryStatus query={found} what='Loading flags' />
      {found.data && unfiltered !== undefined && (
        <>
          <div className='list-summary'>
            <p role='status'>{total === unfiltered ? `${total} flags` : `Showing ${total} of ${unfiltered} flags`}</p>
            {filtered && <button type='button' className='secondary outline small' onClick={() => setFilters(NO_FILTERS)}>Clear filters</button>}
          </div>
          {unfiltered === 0 && <p>No flags in this project yet.{session.can('change-flags', project) ? ' Create the first one with “New flag”.' : ''}</p>}
          {unfiltered > 0 && total === 0 && <p>No flag matches these filters.</p>}
          <FlagRows project={project} flags={flags} total={total} more={() => { if (found.hasNextPage && !found.isFetchingNextPage) found.fetchNextPage() }} />
        </>
      )}
    </>
  )
}

/**
 * Only the rows near the screen are in the page: 5,000 flags cost what 30 do. The list is as
 * long as the search's total; rows not read yet show as loading, and coming near them reads
 * the next page.
 */
const FlagRows = memo(function FlagRows ({ project, flags, total, more }: { project: string; flags: SearchedFlag[]; total: number; more: () => void }) {
  const listRef = useRef<HTMLUListElement>(null)
  const types = useFeatureTypes()
  const lifetimes = useMemo(() => new Map((types.data ?? []).map((t) => [t.id, t.lifetimeDays])), [types.data])
  const virtualizer = useWindowVirtualizer({
    count: total,
    estimateSize: () => 72,
    overscan: 8,
    scrollMargin: listRef.current?.offsetTop ?? 0,
    getItemKey: (i) => flags[i]?.name ?? `row-${i}`,
  })
  const items = virtualizer.getVirtualItems()
  const last = items.at(-1)?.index ?? 0
  useEffect(() => {
    if (last >= flags.length - PAGE / 5 && flags.length < total) more()
  }, [last, flags.length, total, more])
  const now = new Date()
  return (
    <ul ref={listRef} className='flag-rows' aria-label='Flags' aria-busy={flags.length < Math.min(total, last + 1) || undefined} style={{ height: virtualizer.getTotalSize() }}>
      {items.map((item) => {
        const flag = flags[item.index]
        const place = { 'data-index': item.index, 'aria-setsize': total, 'aria-posinset': item.index + 1, style: { transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` } }
        if (!flag) return <li key={item.key} {...place} className='loading-row'><span className='muted'>Loading…</span></li>
        const potentially = !flag.stale && types.data !== undefined &&
          isPotentiallyStale({ stale: flag.stale, createdAt: new Date(flag.createdAt), lifetimeDays: lifetimes.get(flag.type) ?? null }, now)
        return (
          <li key={item.key} ref={virtualizer.measureElement} {...place}>
            <div className='flag-row-main'>
              <Link href={`/projects/${seg(project)}/features/${seg(flag.name)}`} className='flag-name'>{flag.name}</Link>
              {flag.description && <span className='muted description'>{flag.description}</span>}
            </div>
            <div className='flag-row-facts'>
              <span className='badge'>{flagTypeLabel(flag.type)}</span>
              {flag.lifecycle && <span className={`badge stage-${flag.lifecycle.stage}`}>{STAGE_LABELS[flag.lifecycle.stage]}</span>}
              {flag.stale && <span className='badge stale'>Stale</span>}
              {potentially && <span className='badge potentially-stale'>Potentially stale</span>}
              {(flag.tags ?? []).map((t) => <span key={tagLabel(t)} className='badge tag'>{tagLabel(t)}</span>)}
              {flag.environments.map((e) => (
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

export function NewFlag ({ project, open, onClose }: { project: string; open: boolean; onClose: () => void }) {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [type, setType] = useState('release')
  const announce = useAnnounce()
  const [, navigate] = useLocation()
  const create = useCreateFlag(project, {
    onSuccess: () => {
      announce(`Flag ${name} created`)
      onClose()
      navigate(`/projects/${seg(project)}/features/${seg(name)}`)
    },
  })
  return (
    <FormDialog
      title='New flag'
      open={open}
      onClose={onClose}
      onSubmit={() => create.mutate({ name, type, ...(description ? { description } : {}) })}
      write={create}
      shownAt={['/name', '/type', '/description']}
      submitLabel='Create'
    >
      <TextField
        label='Name'
        value={name}
        onChange={setName}
        required
        autoFocus
        hint='Unique across all projects; letters, digits and - _ . ~ (no spaces). SDKs ask for the flag by this name.'
        errors={errorsAt(create.error, '/name')}
      />
      <SelectField label='Type' value={type} onChange={setType} options={FLAG_TYPE_OPTIONS} errors={errorsAt(create.error, '/type')} />
      <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(create.error, '/description')} />
    </FormDialog>
  )
}
