import { Link } from 'wouter'
import { ListScreen } from '../../components/page'
import { WebhookDialog } from '../../features/webhooks/webhook-dialog'
import { WebhookDetails, WebhookList } from '../../features/webhooks/webhooks'

export const WebhooksScreen = () => (
  <ListScreen title='Webhooks' intro='Changes sent to other systems as signed HTTP requests, retried until they are delivered.' newLabel='New webhook' create={(close) => <WebhookDialog webhook={null} onClose={close} />}>
    <WebhookList />
  </ListScreen>
)

export function WebhookScreen ({ id }: { id: string }) {
  return (
    <>
      <p className='crumbs'><Link href='/webhooks'>Webhooks</Link> / {id}</p>
      <WebhookDetails id={id} />
    </>
  )
}
