import { useQuery } from '@tanstack/react-query'
import { del, get, post, put } from '../../api/client'
import { keys } from '../../api/keys'
import type { Constraint, Segment, SegmentUse } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface SegmentBody { name: string; description: string | null; project: string | null; constraints: Constraint[] }

/** The strategies that use a segment (they must give it up before it can go). */
export const useSegmentUsage = (segment: Segment) =>
  useQuery({
    queryKey: keys.segmentUsage(segment.id),
    queryFn: () => get<{ strategies: SegmentUse[] }>(`/api/admin/segments/${segment.id}/strategies`),
  })

/** Creates a segment, or changes `segment` when given. */
export const useSaveSegment = (segment: Segment | null, after?: AfterWrite<SegmentBody, unknown>) =>
  useWrite((body: SegmentBody) => (segment ? put(`/api/admin/segments/${segment.id}`, body) : post('/api/admin/segments', body)), () => [keys.segments], after)

export const useDeleteSegment = (after?: AfterWrite<Segment, unknown>) =>
  useWrite((s: Segment) => del(`/api/admin/segments/${s.id}`), () => [keys.segments], after)
