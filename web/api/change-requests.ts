// Change requests, as several features meet them: which environments of a project need them,
// the caller's own open requests, and proposing a change (the writes of the flag page go there
// in a guarded environment). The change requests screens have the rest (features/change-requests/).
import { useQuery } from '@tanstack/react-query'
import { ApiProblem, get, post, seg } from './client'
import { keys } from './keys'
import type { ChangeRequest, ChangeRequestConfig, ChangeRequestSummary, FlagRef, ProposedChange } from './types'
import { type AfterWrite, useWrite } from './write'

export const changeRequestsPath = (project: string) => `/api/admin/projects/${seg(project)}/change-requests`

/** Each environment of the project with whether people change it through change requests. */
export const useChangeRequestConfig = (project: string) =>
  useQuery({ queryKey: keys.changeRequestConfig(project), queryFn: () => get<ChangeRequestConfig[]>(`${changeRequestsPath(project)}/config`) })

/** Whether people change this environment of the project through change requests (false until known). */
export function useGuarded (project: string) {
  const config = useChangeRequestConfig(project)
  return (environment: string) => config.data?.some((c) => c.environment === environment && c.changeRequestEnabled) ?? false
}

/** The caller's own open requests in the project (Draft, In review, Approved, Scheduled); read only when `enabled`. */
export const useMyChangeRequests = (project: string, enabled = true) =>
  useQuery({ queryKey: keys.myChangeRequests(project), queryFn: () => get<ChangeRequestSummary[]>(`${changeRequestsPath(project)}/pending`), enabled })

/** The caller's open request that takes their next change in this environment, if any. */
export const openRequestIn = (mine: ChangeRequestSummary[] | undefined, environment: string) =>
  mine?.find((r) => r.environment === environment && r.state !== 'Scheduled')

/** How many changes a request holds. */
export const changeCount = (request: Pick<ChangeRequestSummary, 'features' | 'segments'>) =>
  request.features.reduce((n, f) => n + f.changes.length, 0) + request.segments.length

/**
 * Adds changes to the caller's change request for the environment (a new Draft when there is
 * none): what a write of the flag page does in a guarded environment. The flag itself does not
 * change: only its requests are read again (`proposalReads`).
 */
export async function propose (flag: FlagRef, environment: string, changes: ProposedChange[]) {
  try {
    return await post<ChangeRequest>(`/api/admin/projects/${seg(flag.project)}/environments/${seg(environment)}/change-requests`, changes.length === 1 ? changes[0] : changes)
  } catch (error) {
    // One change's payload is the body of the write it stands for: its refusals show at the form's fields as the write's would.
    if (!(error instanceof ApiProblem) || changes.length !== 1) throw error
    const reroot = (text: string) => text.replaceAll('/body/payload', '/body')
    throw new ApiProblem(error.status, error.errorName, reroot(error.message), error.details.map((d) => ({ message: reroot(d.message), ...(d.path !== undefined && { path: reroot(d.path) }) })))
  }
}

/** What a proposal changes: the project's change requests. */
export const proposalReads = (flag: FlagRef) => [keys.changeRequests(flag.project)]

export const useProposeChange = <V>(flag: FlagRef, environment: string, toChanges: (variables: V) => ProposedChange[], after?: AfterWrite<V, ChangeRequest>) =>
  useWrite((variables: V) => propose(flag, environment, toChanges(variables)), () => proposalReads(flag), after)
