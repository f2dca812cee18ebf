import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { del, get, post, put } from '../../api/client'
import { keys } from '../../api/keys'
import type { CreatedWebhook, Delivery, RotatedSecret, Webhook } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export const useWebhooks = () =>
  useQuery({ queryKey: keys.webhooks, queryFn: async () => (await get<{ addons: Webhook[] }>('/api/admin/addons')).addons })

/** A webhook's deliveries, newest first, 50 a page; followed while one is on its way. */
export const useDeliveries = (id: string) =>
  useInfiniteQuery({
    queryKey: keys.deliveries(id),
    initialPageParam: '',
    queryFn: ({ pageParam }) => get<{ deliveries: Delivery[]; nextCursor?: string }>(`/api/admin/addons/${id}/deliveries?limit=50${pageParam ? `&cursor=${pageParam}` : ''}`),
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.deliveries.some((d) => d.state === 'pending')) ? 2000 : false),
  })

export type WebhookBody = Pick<Webhook, 'description' | 'enabled' | 'events' | 'projects' | 'environments'> & {
  provider: 'webhook'
  parameters: { url: string; authorization?: string; bodyTemplate?: string }
}

/** Creates a webhook (the answer holds its signing secret, shown once), or changes `webhook`. */
export const useSaveWebhook = (webhook: Webhook | null, after?: AfterWrite<WebhookBody, Webhook | CreatedWebhook>) =>
  useWrite<WebhookBody, Webhook | CreatedWebhook>(
    (body) => (webhook ? put<Webhook>(`/api/admin/addons/${webhook.id}`, body) : post<CreatedWebhook>('/api/admin/addons', body)),
    () => [keys.webhooks],
    after
  )

export const useDeleteWebhook = (id: string, after?: AfterWrite<void, unknown>) =>
  useWrite(() => del(`/api/admin/addons/${id}`), () => [keys.webhooks], after)

/** A new signing secret; no read shows secrets, so nothing is read again. */
export const useRotateSecret = (id: string, after?: AfterWrite<void, RotatedSecret>) =>
  useWrite(() => post<RotatedSecret>(`/api/admin/addons/${id}/rotate-secret`), () => [], after)

export const useRedeliver = (id: string, after?: AfterWrite<Delivery, unknown>) =>
  useWrite((d: Delivery) => post(`/api/admin/addons/${id}/deliveries/${d.id}/redeliver`), () => [keys.deliveries(id)], after)
