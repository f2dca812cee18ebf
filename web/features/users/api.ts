import { del, post, put } from '../../api/client'
import { keys } from '../../api/keys'
import type { User } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface UserChanges { name?: string; email?: string; rootRole: number; username?: string; password?: string }

/** Creates a user, or changes `user` when given (and sets a new password when one is typed); groups show their members' names. */
export const useSaveUser = (user: User | null, after?: AfterWrite<UserChanges, unknown>) =>
  useWrite(
    async ({ username, password, ...changes }: UserChanges) => {
      if (!user) return post('/api/admin/user-admin', { ...changes, username, ...(password ? { password } : {}) })
      await put(`/api/admin/user-admin/${user.id}`, changes)
      if (password) await post(`/api/admin/user-admin/${user.id}/change-password`, { password })
    },
    () => [keys.users, keys.groups],
    after
  )

/** Deletes a user, who leaves their groups too. */
export const useDeleteUser = (after?: AfterWrite<User, unknown>) =>
  useWrite((u: User) => del(`/api/admin/user-admin/${u.id}`), () => [keys.users, keys.groups], after)
