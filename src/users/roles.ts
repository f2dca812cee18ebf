import { type ProjectRoleName, ROLE_IDS, type RoleName, ROOT_ROLES, type RootRoleName } from '../vocabulary/roles.js'

export interface Role {
  id: number
  type: 'root' | 'project'
  name: RoleName
  description: string
}

export const ROLES: readonly Role[] = [
  { id: ROLE_IDS.Admin, type: 'root', name: 'Admin', description: 'Everything: users, API tokens, webhooks, projects and environments, and all an Editor does' },
  { id: ROLE_IDS.Editor, type: 'root', name: 'Editor', description: 'Reads everything; writes features, strategies, variants, segments, lifecycle, context fields, tags, strategy definitions, project API tokens and imports in every project' },
  { id: ROLE_IDS.Viewer, type: 'root', name: 'Viewer', description: 'Reads everything, changes nothing' },
  { id: ROLE_IDS.Member, type: 'project', name: 'Member', description: 'In one project: writes features, strategies, variants, dependencies and lifecycle, as an Editor does' },
]

export const roleById = (id: number) => ROLES.find((r) => r.id === id)
export const roleByName = (name: RoleName) => ROLES.find((r) => r.name === name)!

/**
 * What a route asks of a person (its `config.role`), beside what it asks of an API token
 * (`config.access`):
 * - `viewer`: anyone signed in;
 * - `editor`: an Editor or Admin, or a Member of the route's `projectId` (a route without one
 *   changes something every project shares, so only a root Editor or Admin);
 * - `admin`: an Admin;
 * - `self`: anyone signed in, acting on their own account (API tokens are not people).
 */
export type RouteRole = 'viewer' | 'editor' | 'admin' | 'self'

/** The highest of root roles (Admin, then Editor, then Viewer): a person's own and their groups'. */
export function highestRootRole (own: RootRoleName, others: readonly RootRoleName[]): RootRoleName {
  return [own, ...others].reduce((best, role) => (ROOT_ROLES.indexOf(role) < ROOT_ROLES.indexOf(best) ? role : best))
}

/** A signed-in person, as every request reads them afresh: roles changed take effect at once. */
export interface Person {
  id: number
  username: string | null
  email: string | null
  name: string | null
  /** The highest of their own root role and their groups'. */
  rootRole: RootRoleName
  /** Project id → the role in it (their own, or a group's). */
  projectRoles: Record<string, ProjectRoleName>
}

/** The name events record as createdBy: the email, else the username. */
export const authorName = (person: Pick<Person, 'email' | 'username' | 'id'>) =>
  person.email ?? person.username ?? `user-${person.id}`

/** Whether a person may call a route that asks `role`, with these path parameters. */
export function personMay (person: Person, role: RouteRole, projectId: string | undefined): boolean {
  switch (role) {
    case 'viewer':
    case 'self':
      return true
    case 'admin':
      return person.rootRole === 'Admin'
    case 'editor':
      return (
        person.rootRole === 'Admin' ||
        person.rootRole === 'Editor' ||
        (projectId !== undefined && person.projectRoles[projectId] === 'Member')
      )
  }
}

/** Why a person may not call a route that asks `role` (the 403's message). */
export function refusal (person: Person, role: RouteRole, projectId: string | undefined): string {
  const who = `User ${authorName(person)} (${person.rootRole})`
  if (role === 'admin') return `${who} may not do this: it needs the Admin role`
  return projectId === undefined
    ? `${who} may not do this: it needs the Editor or Admin role`
    : `${who} may not change project ${projectId}: it needs the Editor or Admin role, or the Member role in project ${projectId}`
}

export interface Permission {
  permission: string
  project?: string
  environment?: string
}

/** Root permissions of an Editor (Unleash's names), for things every project shares. */
const EDITOR_ROOT = [
  'CREATE_SEGMENT', 'UPDATE_SEGMENT', 'DELETE_SEGMENT',
  'CREATE_CONTEXT_FIELD', 'UPDATE_CONTEXT_FIELD', 'DELETE_CONTEXT_FIELD',
  'CREATE_TAG_TYPE', 'UPDATE_TAG_TYPE', 'DELETE_TAG_TYPE',
  'CREATE_STRATEGY', 'UPDATE_STRATEGY', 'DELETE_STRATEGY',
  'READ_CLIENT_API_TOKEN', 'READ_FRONTEND_API_TOKEN',
]
/** Permissions in a project. */
const PROJECT = [
  'CREATE_FEATURE', 'UPDATE_FEATURE', 'DELETE_FEATURE', 'UPDATE_FEATURE_VARIANTS', 'UPDATE_FEATURE_DEPENDENCY',
  'READ_PROJECT_API_TOKEN', 'CREATE_PROJECT_API_TOKEN', 'DELETE_PROJECT_API_TOKEN',
]
/** Permissions in a project's environments. */
const ENVIRONMENT = [
  'CREATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_STRATEGY', 'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
]

const inProject = (project: string): Permission[] => [
  ...PROJECT.map((permission) => ({ permission, project })),
  ...ENVIRONMENT.map((permission) => ({ permission, project, environment: '*' })),
]

/**
 * The `permissions` list of GET /api/admin/user, in Unleash's shape, as its clients read it:
 * `ADMIN` grants everything; a permission with `project: "*"` holds in every project, one with
 * `environment: "*"` in every environment; a Viewer has none.
 */
export function permissionsOf (person: Person): Permission[] {
  if (person.rootRole === 'Admin') return [{ permission: 'ADMIN' }]
  const own = Object.entries(person.projectRoles)
    .filter(([, role]) => role === 'Member')
    .flatMap(([project]) => inProject(project))
  if (person.rootRole === 'Editor') return [...EDITOR_ROOT.map((permission) => ({ permission })), ...inProject('*'), ...own]
  return own
}
