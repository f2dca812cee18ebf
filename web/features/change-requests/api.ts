import { useQuery } from '@tanstack/react-query'
import { changeRequestsPath } from '../../api/change-requests'
import { del, get, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { ChangeRequest, ChangeRequestConfig, ChangeRequestState, ChangeRequestSummary } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export const useChangeRequests = (project: string) =>
  useQuery({ queryKey: keys.changeRequestList(project), queryFn: () => get<ChangeRequestSummary[]>(changeRequestsPath(project)) })

export const useChangeRequest = (project: string, id: number) =>
  useQuery({ queryKey: keys.changeRequest(project, id), queryFn: () => get<ChangeRequest>(`${changeRequestsPath(project)}/${id}`) })

const onePath = (project: string, id: number) => `${changeRequestsPath(project)}/${id}`

/** Everything a request's writes change: the project's requests, and (applying one) its flags. */
const changed = (project: string) => () => [keys.changeRequests(project), keys.projectFlags(project), keys.flags(project), keys.segments]

export interface StateChange { state: ChangeRequestState; scheduledAt?: string; comment?: string }

export const useChangeState = (project: string, id: number, after?: AfterWrite<StateChange, ChangeRequest>) =>
  useWrite((body: StateChange) => put<ChangeRequest>(`${onePath(project, id)}/state`, body), changed(project), after)

export const useComment = (project: string, id: number, after?: AfterWrite<string, unknown>) =>
  useWrite((text: string) => post(`${onePath(project, id)}/comments`, { text }), changed(project), after)

export const useSetTitle = (project: string, id: number, after?: AfterWrite<string, unknown>) =>
  useWrite((title: string) => put(`${onePath(project, id)}/title`, { title }), changed(project), after)

export const useDiscardChange = (project: string, id: number, after?: AfterWrite<number, unknown>) =>
  useWrite((changeId: number) => del(`/api/admin/projects/${seg(project)}/change-requests/${id}/changes/${changeId}`), changed(project), after)

export const useDeleteDraft = (project: string, id: number, after?: AfterWrite<void, unknown>) =>
  useWrite(() => del(onePath(project, id)), changed(project), after)

/** Turns change requests on or off in an environment (Admins). */
export const useConfigure = (project: string, after?: AfterWrite<ChangeRequestConfig, unknown>) =>
  useWrite(
    (c: ChangeRequestConfig) => put(`/api/admin/projects/${seg(project)}/environments/${seg(c.environment)}/change-requests/config`, { changeRequestsEnabled: c.changeRequestEnabled, requiredApprovals: c.requiredApprovals ?? 1 }),
    () => [keys.changeRequests(project)],
    after
  )
