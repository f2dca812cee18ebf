import { useState } from 'react'
import { PageHeading, SelectField, TextField, useTitle } from '../components/ui'
import { EventList } from '../components/events'

export function History () {
  useTitle('History')
  const [project, setProject] = useState('')
  const [type, setType] = useState('')
  const filter: Record<string, string> = {}
  if (/^[A-Za-z0-9\-_.~]{1,100}$/.test(project)) filter.project = project
  if (type) filter.type = type
  return (
    <>
      <PageHeading>History</PageHeading>
      <div className='filters' role='search' aria-label='Filter the history'>
        <TextField label='Project' value={project} onChange={setProject} hint='Empty: every project' />
        <SelectField
          label='What happened'
          value={type}
          onChange={setType}
          options={[
            { value: '', label: 'Everything' },
            ...['feature-created', 'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-add', 'feature-strategy-update',
              'feature-environment-variants-updated', 'feature-completed', 'feature-archived', 'segment-created', 'api-token-created']
              .map((t) => ({ value: t, label: t.replaceAll('-', ' ') })),
          ]}
        />
      </div>
      <EventList filter={filter} />
    </>
  )
}
