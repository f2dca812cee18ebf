/** The predefined roles: root roles (for everything) and project roles (in one project). */
export const ROOT_ROLES = ['Admin', 'Editor', 'Viewer'] as const
export const PROJECT_ROLES = ['Member'] as const
export type RootRoleName = (typeof ROOT_ROLES)[number]
export type ProjectRoleName = (typeof PROJECT_ROLES)[number]
export type RoleName = RootRoleName | ProjectRoleName

/** Role ids as Unleash numbers its predefined roles, so that clients reading ids agree. */
export const ROLE_IDS = { Admin: 1, Editor: 2, Viewer: 3, Member: 5 } as const satisfies Record<RoleName, number>

/** The root role with this id, if it is one. */
export const rootRoleById = (id: number): RootRoleName | undefined => ROOT_ROLES.find((name) => ROLE_IDS[name] === id)
