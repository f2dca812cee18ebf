// What the signed-in person's role lets them do, in the UI's terms. The API decides; the UI only
// leaves out what the role may not do, so that nobody is offered a button that can only fail.
import { type RootRoleName, rootRoleById } from '../../src/vocabulary/roles'
import type { Me } from '../api/types'

export type Role = RootRoleName

/** The person's root role; an unknown role id reads as Admin when they hold ADMIN, else Viewer. */
export function roleOf (me: Pick<Me, 'user' | 'permissions'>): Role {
  return rootRoleById(me.user.rootRole) ?? (me.permissions.some((p) => p.permission === 'ADMIN') ? 'Admin' : 'Viewer')
}

export type Capability = 'change-flags' | 'admin'

const ALLOWED: Record<Role, Capability[]> = {
  Admin: ['change-flags', 'admin'],
  Editor: ['change-flags'],
  Viewer: [],
}

export const may = (role: Role, capability: Capability) => ALLOWED[role].includes(capability)

/**
 * Whether the person changes flags in `project` through a role there (Member, their own or a
 * group's), whatever their root role: GET /api/admin/user lists what they may change by project.
 */
export const memberOf = (me: Pick<Me, 'permissions'>, project: string) =>
  me.permissions.some((p) => p.permission === 'UPDATE_FEATURE_ENVIRONMENT' && p.project === project)

/** What the person may do, in `project` when given: their root role's, and there what a project role adds. */
export const mayIn = (me: Pick<Me, 'user' | 'permissions'>, capability: Capability, project?: string) =>
  may(roleOf(me), capability) || (capability === 'change-flags' && project !== undefined && memberOf(me, project))
