import { useQuery } from '@tanstack/react-query'
import { del, get, post, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { ApiToken, CreatedToken } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'
import type { TokenType } from '../../../src/access/scope'

export interface NewToken { tokenName: string; type: TokenType; projects: string[]; environment?: string }

export const useApiTokens = () =>
  useQuery({ queryKey: keys.apiTokens, queryFn: async () => (await get<{ tokens: ApiToken[] }>('/api/admin/api-tokens')).tokens })

export const useCreateApiToken = (after?: AfterWrite<NewToken, CreatedToken>) =>
  useWrite((token: NewToken) => post<CreatedToken>('/api/admin/api-tokens', token), () => [keys.apiTokens], after)

export const useDeleteApiToken = (after?: AfterWrite<ApiToken, unknown>) =>
  useWrite((t: ApiToken) => del(`/api/admin/api-tokens/${seg(t.tokenName)}`), () => [keys.apiTokens], after)
