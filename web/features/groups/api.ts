import { ApiProblem, del, post, put } from '../../api/client'
import { keys } from '../../api/keys'
import type { Group, GroupBody } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

/**
 * A name another group has is refused with a 409 that names no field; the only unique field of
 * a group is its name, so the refusal is shown there.
 */
const takenNameAtName = (error: unknown) => {
  if (!(error instanceof ApiProblem) || error.errorName !== 'NameExistsError') return error
  return new ApiProblem(error.status, error.errorName, error.message, [{ path: '/name', message: error.message }], error.body)
}

/** Creates a group, or replaces `group` when given (its members become exactly those sent). */
export const useSaveGroup = (group: Group | null, after?: AfterWrite<GroupBody, Group>) =>
  useWrite(
    async (body: GroupBody) => {
      try {
        return await (group ? put<Group>(`/api/admin/groups/${group.id}`, body) : post<Group>('/api/admin/groups', body))
      } catch (error) {
        throw takenNameAtName(error)
      }
    },
    () => [keys.groups],
    after
  )

export const useDeleteGroup = (after?: AfterWrite<Group, unknown>) =>
  useWrite((g: Group) => del(`/api/admin/groups/${g.id}`), () => [keys.groups], after)
