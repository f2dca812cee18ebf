import { useState } from 'react'
import type { EventType } from '../../../src/events/events.schemas'
import type { Webhook } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { errorsAt } from '../../components/feedback'
import { Check, Checks, GroupErrors, TextArea, TextField } from '../../components/form'
import { SecretThenDone } from '../../components/secret'
import { useAnnounce } from '../../lib/announce'
import { commaList } from '../../lib/lists'
import { useSaveWebhook } from './api'

/** The event types the dialog offers to send. */
const EVENTS: EventType[] = [
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

/** A new webhook (`webhook` null; its signing secret is shown once, when it is made), or changes to one. */
export function WebhookDialog ({ webhook, onClose }: { webhook: Webhook | null; onClose: () => void }) {
  const announce = useAnnounce()
  const [url, setUrl] = useState(webhook?.parameters.url ?? '')
  const [description, setDescription] = useState(webhook?.description ?? '')
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true)
  const [events, setEvents] = useState<string[]>(webhook?.events ?? ['feature-environment-enabled', 'feature-environment-disabled'])
  const [projects, setProjects] = useState((webhook?.projects ?? []).join(', '))
  const [environments, setEnvironments] = useState((webhook?.environments ?? []).join(', '))
  const [authorization, setAuthorization] = useState<string>(webhook?.parameters.authorization ?? '')
  const [bodyTemplate, setBodyTemplate] = useState(webhook?.parameters.bodyTemplate ?? '')
  const save = useSaveWebhook(webhook, {
    onSuccess: () => {
      announce('Webhook saved')
      if (webhook) onClose()
    },
  })
  const submit = () => save.mutate({
    provider: 'webhook',
    description: description || null,
    enabled,
    events,
    projects: commaList(projects),
    environments: commaList(environments),
    parameters: {
      url,
      ...(authorization ? { authorization } : {}),
      ...(bodyTemplate ? { bodyTemplate } : {}),
    },
  })
  const created = !webhook && save.data && 'signingSecret' in save.data ? save.data.signingSecret : undefined
  return (
    <FormDialog
      title={webhook ? 'Edit webhook' : 'New webhook'}
      onClose={onClose}
      wide
      onSubmit={submit}
      write={save}
      shownAt={['/parameters/url', '/description', '/events', '/projects', '/environments', '/parameters/authorization', '/parameters/bodyTemplate']}
      done={created && <SecretThenDone label='The signing secret receivers verify deliveries with.' secret={created} onDone={onClose} />}
    >
      <TextField label='URL' type='url' value={url} onChange={setUrl} required hint='http or https; private and loopback addresses are refused unless the server allows them' errors={errorsAt(save.error, '/parameters/url')} />
      <TextField label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
      <Check isSwitch label='Enabled' checked={enabled} onChange={setEnabled} />
      <fieldset className='event-choices'>
        <legend>Events to send</legend>
        <div className='grid-2'>
          <Checks choices={EVENTS.map((e) => ({ value: e, label: e }))} chosen={events} onChange={setEvents} />
        </div>
        <GroupErrors errors={errorsAt(save.error, '/events')} />
      </fieldset>
      <div className='grid-2'>
        <TextField label='Only these projects' value={projects} onChange={setProjects} hint='Separated by commas; empty: all' errors={errorsAt(save.error, '/projects')} />
        <TextField label='Only these environments' value={environments} onChange={setEnvironments} hint='Separated by commas; empty: all' errors={errorsAt(save.error, '/environments')} />
      </div>
      <TextField label='Authorization header' value={authorization} onChange={setAuthorization} autoComplete='off' hint={webhook ? 'Shown masked; leave ***** to keep the stored value' : 'Optional; sent as it is'} errors={errorsAt(save.error, '/parameters/authorization')} />
      <TextArea label='Body template' value={bodyTemplate} onChange={setBodyTemplate} rows={3} hint='Optional Mustache template; empty: the event as JSON' errors={errorsAt(save.error, '/parameters/bodyTemplate')} />
    </FormDialog>
  )
}
