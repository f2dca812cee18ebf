import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { memo, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { seg } from '../../api/client'
import { useFlags } from '../../api/reads'
import type { FeatureSummary } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { errorsAt, QueryStatus } from '../../components/feedback'
import { SelectField, TextArea, TextField } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { FLAG_TYPE_OPTIONS, flagTypeLabel, LISTED_STAGE_OPTIONS, STAGE_LABELS, tagLabel } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useCreateFlag } from './api'
import { activeFilters, choices, type Filters, NO_FILTERS, readFilters, selectFlags, SORT_OPTIONS, writeFilters } from './filters'

/** A project's flags: searched, filtered and sorted in the page, the filters kept in the address. */
export function FlagList ({ project }: { project: string }) {
  const features = useFlags(project)
  const session = useSession()
  const [filters, setFilters] = useState<Filters>(() => readFilters(window.location.search))
  // The list follows the deferred filters: typing stays responsive while the list catches up.
  const deferred = useDeferredValue(filters)
  useEffect(() => {
    const next = `${window.location.pathname}${writeFilters(filters)}`
    if (next !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', next)
  }, [filters])

  const all = features.data ?? []
  const { environments, tags } = useMemo(() => choices(all), [all])
  const visible = useMemo(() => selectFlags(all, deferred), [all, deferred])
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }))
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS)
  const active = activeFilters(filters)
  const [wide] = useState(() => window.matchMedia('(min-width: 700px)').matches || active > 0)

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
            <SelectField label='Sort by' value={filters.sort} onChange={(sort) => set({ sort })} options={SORT_OPTIONS} />
          </div>
        </details>
      </div>
      <QueryStatus query={features} what='Loading flags' />
      {features.data && (
        <>
          <div className='list-summary'>
            <p role='status'>{visible.length === all.length ? `${all.length} flags` : `Showing ${visible.length} of ${all.length} flags`}</p>
            {filtered && <button type='button' className='secondary outline small' onClick={() => setFilters(NO_FILTERS)}>Clear filters</button>}
          </div>
          {all.length === 0 && <p>No flags in this project yet.{session.can('change-flags') ? ' Create the first one with “New flag”.' : ''}</p>}
          {all.length > 0 && visible.length === 0 && <p>No flag matches these filters.</p>}
          <FlagRows project={project} flags={visible} />
        </>
      )}
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
              <span className='badge'>{flagTypeLabel(flag.type)}</span>
              <span className={`badge stage-${flag.lifecycle.stage}`}>{STAGE_LABELS[flag.lifecycle.stage]}</span>
              {flag.tags.map((t) => <span key={tagLabel(t)} className='badge tag'>{tagLabel(t)}</span>)}
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
