import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { Confirm } from '../../components/dialog'
import { ErrorAlert, Loading, Time } from '../../components/feedback'
import { PageHeading, useTitle } from '../../components/page'
import { SecretOnce } from '../../components/secret'
import { QueryTable } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { useDeleteWebhook, useRotateSecret, useWebhooks } from './api'
import { Deliveries } from './deliveries'
import { WebhookDialog } from './webhook-dialog'

/** Every webhook: where it sends, how many event types, whether it is enabled. */
export function WebhookList () {
  const webhooks = useWebhooks()
  return (
    <>
      <QueryTable
        query={webhooks} what='Loading webhooks' empty='No webhooks yet.'
        rowKey={(w) => w.id}
        rowHeader={{ label: 'Webhook', cell: (w) => <Link href={`/webhooks/${w.id}`}>{w.description || w.parameters.url}</Link>, detail: (w) => w.parameters.url }}
        columns={[
          { label: 'Events', cell: (w) => `${w.events.length} ${w.events.length === 1 ? 'event type' : 'event types'}` },
          { label: 'State', cell: (w) => (w.enabled ? 'Enabled' : 'Disabled') },
        ]}
      />
    </>
  )
}

/** One webhook: what it sends where, its deliveries, and editing, a new secret or deleting it. */
export function WebhookDetails ({ id }: { id: string }) {
  const webhooks = useWebhooks()
  const webhook = webhooks.data?.find((w) => String(w.id) === id)
  useTitle(webhook ? `Webhook ${webhook.description || webhook.parameters.url}` : 'Webhook')
  const announce = useAnnounce()
  const [editing, setEditing] = useState(false)
  const [removing, setRemoving] = useState(false)
  const [, navigate] = useLocation()
  const rotate = useRotateSecret(id, { onSuccess: () => announce('A new signing secret was made') })
  const remove = useDeleteWebhook(id, {
    onSuccess: () => {
      announce('Webhook deleted')
      navigate('/webhooks')
    },
  })
  if (webhooks.isPending) return <><PageHeading>Webhook</PageHeading><Loading /></>
  if (webhooks.isError) return <><PageHeading>Webhook</PageHeading><ErrorAlert error={webhooks.error} /></>
  if (!webhook) return <><PageHeading>Webhook</PageHeading><p>There is no webhook {id}.</p></>
  return (
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
  )
}
