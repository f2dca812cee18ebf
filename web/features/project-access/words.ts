import type { ProjectAccess } from '../../api/types'

/** Role ids as the access read names them ("Member"); an id it does not list is shown as one. */
export const roleWords = (access: ProjectAccess, ids: number[]) =>
  ids.map((id) => access.roles.find((r) => r.id === id)?.name ?? `role ${id}`).join(', ')
