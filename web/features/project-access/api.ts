import { useQuery } from '@tanstack/react-query'
import { del, get, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { ProjectAccess } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

/** Who has a role in a project: the project roles, and the people and groups holding one there. */
export const useProjectAccess = (project: string) =>
  useQuery({ queryKey: keys.projectAccess(project), queryFn: () => get<ProjectAccess>(`/api/admin/projects/${seg(project)}/access`) })

/** A person or a group, as a role in a project is given to either. */
export interface Grantee { kind: 'user' | 'group'; id: number; name: string }

const rolesPath = (project: string, g: Grantee) => `/api/admin/projects/${seg(project)}/${g.kind === 'user' ? 'users' : 'groups'}/${g.id}/roles`

/** The reads a grantee's role in a project changes: the access, and the groups' list of their projects. */
const changed = (project: string, g: Grantee) => (g.kind === 'group' ? [keys.projectAccess(project), keys.groups] : [keys.projectAccess(project)])

/** Gives a person or a group `role` in the project (in place of any role they had there). */
export const useGiveRole = (project: string, after?: AfterWrite<{ grantee: Grantee; role: number }, unknown>) =>
  useWrite(({ grantee, role }: { grantee: Grantee; role: number }) => put(rolesPath(project, grantee), { roles: [role] }), ({ grantee }) => changed(project, grantee), after)

/** Takes away a person's or a group's role in the project. */
export const useRemoveRole = (project: string, after?: AfterWrite<Grantee, unknown>) =>
  useWrite((grantee: Grantee) => del(rolesPath(project, grantee)), (grantee) => changed(project, grantee), after)
