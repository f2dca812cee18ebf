import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { get, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { RawMetrics } from '../../api/types'

/** A flag's usage per hour over the last `hours` hours, per environment and application. */
export const useFlagUsage = (name: string, hours: number) =>
  useQuery({
    queryKey: keys.usage(name, hours),
    queryFn: () => get<RawMetrics>(`/api/admin/client-metrics/features/${seg(name)}/raw?hoursBack=${hours}`),
    placeholderData: keepPreviousData,
    // SDKs report about every minute: a minute-old chart says the same.
    staleTime: 60_000,
  })
