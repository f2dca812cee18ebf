import { useQuery } from '@tanstack/react-query'
import { del, get, post } from '../../api/client'
import { keys } from '../../api/keys'
import type { CreatedPersonalAccessToken, PersonalAccessToken } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface NewAccessToken { description: string; expiresAt: string }
export interface PasswordChange { oldPassword: string; password: string; confirmPassword: string }

export const useAccessTokens = () =>
  useQuery({ queryKey: keys.personalAccessTokens, queryFn: async () => (await get<{ pats: PersonalAccessToken[] }>('/api/admin/user/tokens')).pats })

export const useCreateAccessToken = (after?: AfterWrite<NewAccessToken, CreatedPersonalAccessToken>) =>
  useWrite((token: NewAccessToken) => post<CreatedPersonalAccessToken>('/api/admin/user/tokens', token), () => [keys.personalAccessTokens], after)

export const useDeleteAccessToken = (after?: AfterWrite<PersonalAccessToken, unknown>) =>
  useWrite((t: PersonalAccessToken) => del(`/api/admin/user/tokens/${t.id}`), () => [keys.personalAccessTokens], after)

/** No read shows a password: nothing is read again. */
export const useChangePassword = (after?: AfterWrite<PasswordChange, unknown>) =>
  useWrite((change: PasswordChange) => post('/api/admin/user/change-password', change), () => [], after)
