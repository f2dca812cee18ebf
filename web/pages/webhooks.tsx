import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { del, get, post, put } from '../api'
import { useAnnounce } from '../announce'
import { Check, Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, Loading, PageHeading, QueryStatus, RowButton, RowHeader, SecretOnce, submitting, TextArea, TextField, Time, useTitle } from '../components/ui'
import type { Delivery, Webhook } from '../types'

const KEY = ['webhooks']

/** The event types a webhook can ask for (the API's list). */
const EVENTS = [
  'feature-created', 'feature-metadata-updated', 'feature-archived', 'feature-revived',
  'feature-environment-enabled', 'feature-environment-disabled', 'feature-environment-variants-updated',
  'feature-strategy-add', 'feature-strategy-update', 'feature-strategy-remove', 'strategy-order-changed',
  'feature-completed', 'feature-uncompleted', 'feature-lifecycle-stage-entered',
  'feature-dependency-added', 'feature-dependency-removed', 'feature-dependencies-removed',
  'project-created', 'environment-created', 'project-environment-added',
  'strategy-created', 'strategy-updated', 'strategy-deprecated', 'strategy-reactivated',
  'segment-created', 'segment-updated', 'segment-deleted',
  'api-token-created', 'api-token-deleted',
  'addon-config-created', 'addon-config-updated', 'addon-config-deleted', 'addon-secret-rotated', 'addon-delivery-redelivered',
]

const useWebhooks = () => useQuery({ queryKey: KEY, queryFn: async () => (await get<{ addons: Webhook[] }>('/api/admin/addons')).addons })

export function Webhooks () {
  useTitle('Webhooks')
  const webhooks = useWebhooks()
  const [creating, setCreating] = useState(false)
  return (
    <>
      <PageHeading actions={<button type='button' onClick={() => setCreating(true)}>New webhook</button>}>Webhooks</PageHeading>
      <p className='muted'>Changes sent to other systems as signed HTTP requests, retried until they are delivered.</p>
      <QueryStatus query={webhooks} what='Loading webhooks' />
      {webhooks.data?.length === 0 && <p>No webhooks yet.</p>}
      {webhooks.data && webhooks.data.length > 0 && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Webhook</th><th scope='col'>Events</th><th scope='col'>State</th></tr></thead>
            <tbody>
              {webhooks.data.map((w) => (
                <tr key={w.id}>
                  <RowHeader detail={w.parameters.url}><Link href={`/webhooks/${w.id}`}>{w.description || w.parameters.url}</Link></RowHeader>
                  <td>{w.events.length} {w.events.length === 1 ? 'event type' : 'event types'}</td>
                  <td>{w.enabled ? 'Enabled' : 'Disabled'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <WebhookDialog webhook={null} onClose={() => setCreating(false)} />}
    </>
  )
}

export function WebhookPage ({ id }: { id: string }) {
  const webhooks = useWebhooks()
  const webhook = webhooks.data?.find((w) => String(w.id) === id)
  useTitle(webhook ? `Webhook ${webhook.description || webhook.parameters.url}` : 'Webhook')
  const client = useQueryClient()
  const announce = useAnnounce()
  const [editing, setEditing] = useState(false)
  const [removing, setRemoving] = useState(false)
  const [, navigate] = useLocation()
  const rotate = useMutation({
    mutationFn: () => post<{ signingSecret: string; previousSecretValidUntil: string }>(`/api/admin/addons/${id}/rotate-secret`),
    onSuccess: () => announce('A new signing secret was made'),
  })
  const remove = useMutation({
    mutationFn: () => del(`/api/admin/addons/${id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('Webhook deleted')
      navigate('/webhooks')
    },
  })
  return (
    <>
      <p className='crumbs'><Link href='/webhooks'>Webhooks</Link> / {id}</p>
      {webhooks.isPending && <><PageHeading>Webhook</PageHeading><Loading /></>}
      {webhooks.isError && <><PageHeading>Webhook</PageHeading><ErrorAlert error={webhooks.error} /></>}
      {webhooks.data && !webhook && <><PageHeading>Webhook</PageHeading><p>There is no webhook {id}.</p></>}
      {webhook && (
        <>
          <PageHeading
            actions={(
              <>
                <button type='button' className='secondary' onClick={() => setEditing(true)}>Edit</button>
                <button type='button' className='secondary outline' onClick={() => rotate.mutate()}>Rotate the signing secret</button>
                <button type='button' className='secondary outline' onClick={() => setRemoving(true)}>Delete</button>
              </>
            )}
          >
            {webhook.description || webhook.parameters.url}
          </PageHeading>
          <p>Sends {webhook.events.join(', ')} to <code>{webhook.parameters.url}</code>. {webhook.enabled ? 'Enabled.' : 'Disabled: deliveries wait until it is enabled again.'}</p>
          {rotate.data && (
            <div className='alert warning'>
              <SecretOnce label='The new signing secret.' secret={rotate.data.signingSecret} />
              <p>The previous secret keeps being used beside it until <Time value={rotate.data.previousSecretValidUntil} />.</p>
            </div>
          )}
          <ErrorAlert error={rotate.error} />
          <Deliveries id={id} />
          {editing && <WebhookDialog webhook={webhook} onClose={() => setEditing(false)} />}
          <Confirm title='Delete this webhook?' open={removing} onClose={() => setRemoving(false)} onConfirm={() => remove.mutate()} confirmLabel='Delete' busy={remove.isPending} error={remove.error}>
            <p>Its pending deliveries are dropped.</p>
          </Confirm>
        </>
      )}
    </>
  )
}

function Deliveries ({ id }: { id: string }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const deliveries = useInfiniteQuery({
    queryKey: ['deliveries', id],
    initialPageParam: '',
    queryFn: ({ pageParam }) => get<{ deliveries: Delivery[]; nextCursor?: string }>(`/api/admin/addons/${id}/deliveries?limit=50${pageParam ? `&cursor=${pageParam}` : ''}`),
    getNextPageParam: (last) => last.nextCursor,
    // While a delivery is on its way, follow it.
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.deliveries.some((d) => d.state === 'pending')) ? 2000 : false),
  })
  const redeliver = useMutation({
    mutationFn: (d: Delivery) => post(`/api/admin/addons/${id}/deliveries/${d.id}/redeliver`),
    onSuccess: async (_r, d) => {
      await client.invalidateQueries({ queryKey: ['deliveries', id] })
      announce(`Delivery ${d.id} will be sent again`)
    },
  })
  const all = deliveries.data?.pages.flatMap((p) => p.deliveries) ?? []
  return (
    <section aria-labelledby='deliveries-heading'>
      <h2 id='deliveries-heading'>Deliveries</h2>
      <QueryStatus query={deliveries} what='Loading deliveries' />
      <ErrorAlert error={redeliver.error} />
      {deliveries.data && all.length === 0 && <p className='muted'>Nothing sent yet.</p>}
      {all.length > 0 && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Event</th><th scope='col'>State</th><th scope='col'>Attempts</th><th scope='col'><span className='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {all.map((d) => (
                <tr key={d.id}>
                  <RowHeader detail={<>event {d.eventId}, <Time value={d.createdAt} /></>}>{d.eventType}</RowHeader>
                  <td>{d.state === 'pending' ? <>Pending{d.nextAttemptAt && <>, next try <Time value={d.nextAttemptAt} /></>}</> : d.state === 'delivered' ? 'Delivered' : 'Gave up'}</td>
                  <td>
                    {d.attempts.length === 0 && 'None yet'}
                    {d.attempts.length > 0 && (
                      <details>
                        <summary>{d.attempts.length} {d.attempts.length === 1 ? 'attempt' : 'attempts'}<span className='visually-hidden'> for delivery {d.id}</span></summary>
                        <ol>
                          {d.attempts.map((a) => (
                            <li key={a.attempt}>
                              <Time value={a.startedAt} />: {a.status === null ? 'no answer' : `HTTP ${a.status}`}
                              {a.durationMs !== null && ` in ${a.durationMs} ms`}{a.error && ` (${a.error})`}
                            </li>
                          ))}
                        </ol>
                      </details>
                    )}
                  </td>
                  <td>
                    {d.state !== 'pending' && (
                      <RowButton onClick={() => redeliver.mutate(d)} what={`delivery ${d.id}`}>Redeliver</RowButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deliveries.hasNextPage && <button type='button' className='secondary' onClick={() => deliveries.fetchNextPage()}>Show older deliveries</button>}
    </section>
  )
}

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean)

function WebhookDialog ({ webhook, onClose }: { webhook: Webhook | null; onClose: () => void }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const [url, setUrl] = useState(webhook?.parameters.url ?? '')
  const [description, setDescription] = useState(webhook?.description ?? '')
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true)
  const [events, setEvents] = useState<string[]>(webhook?.events ?? ['feature-environment-enabled', 'feature-environment-disabled'])
  const [projects, setProjects] = useState((webhook?.projects ?? []).join(', '))
  const [environments, setEnvironments] = useState((webhook?.environments ?? []).join(', '))
  const [authorization, setAuthorization] = useState(webhook?.parameters.authorization ?? '')
  const [bodyTemplate, setBodyTemplate] = useState(webhook?.parameters.bodyTemplate ?? '')
  const save = useMutation({
    mutationFn: () => {
      const body = {
        provider: 'webhook',
        description: description || null,
        enabled,
        events,
        projects: list(projects),
        environments: list(environments),
        parameters: {
          url,
          ...(authorization ? { authorization } : {}),
          ...(bodyTemplate ? { bodyTemplate } : {}),
        },
      }
      return webhook ? put<Webhook>(`/api/admin/addons/${webhook.id}`, body) : post<Webhook>('/api/admin/addons', body)
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('Webhook saved')
      if (webhook) onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  const created = !webhook && save.data?.signingSecret
  return (
    <Dialog title={webhook ? 'Edit webhook' : 'New webhook'} open onClose={onClose} wide>
      {created
        ? (
          <>
            <SecretOnce label='The signing secret receivers verify deliveries with.' secret={save.data!.signingSecret!} />
            <footer><button type='button' onClick={onClose}>Done</button></footer>
          </>
          )
        : (
          <form onSubmit={submit}>
            <TextField label='URL' type='url' value={url} onChange={setUrl} required hint='http or https; private and loopback addresses are refused unless the server allows them' errors={errorsAt(save.error, '/parameters/url')} />
            <TextField label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
            <Check isSwitch label='Enabled' checked={enabled} onChange={setEnabled} />
            <fieldset className='event-choices'>
              <legend>Events to send</legend>
              <div className='grid-2'>
                {EVENTS.map((e) => (
                  <Check key={e} label={e} checked={events.includes(e)} onChange={(on) => setEvents((es) => (on ? [...es, e] : es.filter((x) => x !== e)))} />
                ))}
              </div>
              {errorsAt(save.error, '/events').length > 0 && <p className='field-error'>{errorsAt(save.error, '/events').join(' ')}</p>}
            </fieldset>
            <div className='grid-2'>
              <TextField label='Only these projects' value={projects} onChange={setProjects} hint='Separated by commas; empty: all' errors={errorsAt(save.error, '/projects')} />
              <TextField label='Only these environments' value={environments} onChange={setEnvironments} hint='Separated by commas; empty: all' errors={errorsAt(save.error, '/environments')} />
            </div>
            <TextField label='Authorization header' value={authorization} onChange={setAuthorization} autoComplete='off' hint={webhook ? 'Shown masked; leave ***** to keep the stored value' : 'Optional; sent as it is'} errors={errorsAt(save.error, '/parameters/authorization')} />
            <TextArea label='Body template' value={bodyTemplate} onChange={setBodyTemplate} rows={3} hint='Optional Mustache template; empty: the event as JSON' errors={errorsAt(save.error, '/parameters/bodyTemplate')} />
            <ErrorAlert error={save.error} shownAt={['/parameters/url', '/description', '/events', '/projects', '/environments', '/parameters/authorization', '/parameters/bodyTemplate']} />
            <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
          </form>
          )}
    </Dialog>
  )
}
