import { useInfiniteQuery } from '@tanstack/react-query'
import { get } from '../../api/client'
import { keys } from '../../api/keys'
import type { StoredEvent } from '../../api/types'

/** Events newest first, 50 a page, as `filter` (project, feature, type) selects them. */
export const useEvents = (filter: Record<string, string>) =>
  useInfiniteQuery({
    queryKey: [...keys.events, filter],
    initialPageParam: '',
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ ...filter, limit: '50', ...(pageParam ? { cursor: pageParam } : {}) })
      return get<{ events: StoredEvent[]; nextCursor?: string }>(`/api/admin/events?${params}`)
    },
    getNextPageParam: (last) => last.nextCursor,
  })
