import { useState } from 'react'
import type { EventType } from '../../../src/events/events.schemas'
import { SelectField, TextField } from '../../components/form'
import { EventList } from './event-list'

/** What the history can be filtered by (the types people ask about most). */
const FILTER_TYPES: EventType[] = [
  'feature-created', 'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-add', 'feature-strategy-update',
  'feature-environment-variants-updated', 'feature-completed', 'feature-archived', 'segment-created', 'api-token-created',
]

const TYPE_OPTIONS = [{ value: '', label: 'Everything' }, ...FILTER_TYPES.map((t) => ({ value: t, label: t.replaceAll('-', ' ') }))]

/** Every event, filtered by project and by what happened. */
export function EventHistory () {
  const [project, setProject] = useState('')
  const [type, setType] = useState('')
  const filter: Record<string, string> = {}
  if (/^[A-Za-z0-9\-_.~]{1,100}$/.test(project)) filter.project = project
  if (type) filter.type = type
  return (
    <>
      <div className='filters' role='search' aria-label='Filter the history'>
        <TextField label='Project' value={project} onChange={setProject} hint='Empty: every project' />
        <SelectField label='What happened' value={type} onChange={setType} options={TYPE_OPTIONS} />
      </div>
      <EventList filter={filter} />
    </>
  )
}
