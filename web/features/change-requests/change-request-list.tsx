import { useState } from 'react'
import { Link } from 'wouter'
import { useChangeRequestConfig } from '../../api/change-requests'
import { seg } from '../../api/client'
import type { ChangeRequestConfig, ChangeRequestSummary } from '../../api/types'
import { ErrorAlert, QueryStatus, Time } from '../../components/feedback'
import { Check, TextField } from '../../components/form'
import { QueryTable } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { useSession } from '../../lib/session'
import { useChangeRequests, useConfigure } from './api'
import { STATE_LABELS } from './words'

const requestHref = (project: string, id: number) => `/projects/${seg(project)}/change-requests/${id}`

/** A project's change requests, newest first: others' drafts are theirs alone. */
export function ChangeRequestList ({ project }: { project: string }) {
  const requests = useChangeRequests(project)
  return (
    <section aria-labelledby='requests-heading'>
      <h2 id='requests-heading'>Requests</h2>
      <QueryTable<ChangeRequestSummary>
        query={requests}
        what='Loading change requests'
        empty={<p className='muted'>No change requests yet. In an environment that needs them, the changes people make on a flag's page go into one.</p>}
        rowKey={(r) => r.id}
        rowHeader={{
          label: 'Request',
          cell: (r) => <Link href={requestHref(project, r.id)}>#{r.id}{r.title ? ` ${r.title}` : ''}</Link>,
          detail: (r) => r.features.map((f) => f.name).concat(r.segments.map((s) => `segment ${s.name}`)).join(', '),
        }}
        columns={[
          { label: 'Environment', cell: (r) => r.environment },
          { label: 'State', cell: (r) => <span className={`badge state-${r.state.replace(' ', '-').toLowerCase()}`}>{STATE_LABELS[r.state]}</span> },
          { label: 'Author', cell: (r) => r.createdBy.username ?? 'a deleted user' },
          { label: 'Created', cell: (r) => <Time value={r.createdAt} /> },
        ]}
      />
    </section>
  )
}

/** Which environments need change requests, and how many approvals; Admins change it. */
export function ChangeRequestSettings ({ project }: { project: string }) {
  const config = useChangeRequestConfig(project)
  const session = useSession()
  return (
    <section aria-labelledby='settings-heading'>
      <h2 id='settings-heading'>Environments</h2>
      <p className='muted'>
        Where change requests are on, people propose changes to a flag and someone else approves them before they apply.
        API tokens (automation) still write directly.
      </p>
      <QueryStatus query={config} what='Loading the settings' />
      <ul className='plain'>
        {(config.data ?? []).map((c) => (
          <li key={c.environment}>
            {session.can('admin')
              ? <EnvironmentSetting project={project} config={c} />
              : <p><strong>{c.environment}</strong>: {c.changeRequestEnabled ? `change requests, ${c.requiredApprovals ?? 1} approval${c.requiredApprovals === 1 ? '' : 's'} needed` : 'direct changes'}</p>}
          </li>
        ))}
      </ul>
    </section>
  )
}

function EnvironmentSetting ({ project, config }: { project: string; config: ChangeRequestConfig }) {
  const announce = useAnnounce()
  const [approvals, setApprovals] = useState(String(config.requiredApprovals ?? 1))
  const save = useConfigure(project, { onSuccess: (_d, c) => announce(`Change requests ${c.changeRequestEnabled ? 'on' : 'off'} in ${c.environment}`) })
  const write = (changeRequestEnabled: boolean) => save.mutate({ ...config, changeRequestEnabled, requiredApprovals: Number(approvals) || 1 })
  return (
    <fieldset>
      <legend>{config.environment}</legend>
      <Check isSwitch label={`Change requests in ${config.environment}`} checked={save.isPending ? save.variables.changeRequestEnabled : config.changeRequestEnabled} disabled={save.isPending} onChange={write} />
      <div className='row'>
        <TextField label={`Approvals needed in ${config.environment}`} type='number' min={1} max={10} value={approvals} onChange={setApprovals} />
        <button type='button' className='secondary' onClick={() => write(config.changeRequestEnabled)} disabled={save.isPending}>Save<span className='visually-hidden'> approvals in {config.environment}</span></button>
      </div>
      <ErrorAlert error={save.error} />
    </fieldset>
  )
}
