import { useMutation, useQuery } from '@tanstack/react-query'
import { get, post, seg } from '../../api/client'
import type { TokenUser, User } from '../../api/types'

// A person who is not signed in, with a link an Admin handed on: the link's token is the only
// credential, so these reads and writes are not cached beyond the page and not retried.

/** Whose reset or invitation link this is (401 when it does not work any more). */
export const useResetLink = (token: string) =>
  useQuery({ queryKey: ['reset-link', token], queryFn: () => get<TokenUser>(`/auth/reset/validate?token=${encodeURIComponent(token)}`), retry: false, staleTime: Infinity })

export const useSetPassword = () =>
  useMutation({ mutationFn: (change: { token: string; password: string }) => post('/auth/reset/password', change) })

/** Whether a sign-up link works (400 when it does not). */
export const useSignupLink = (secret: string) =>
  useQuery({ queryKey: ['signup-link', secret], queryFn: async () => { await get(`/invite/${seg(secret)}/validate`); return true }, retry: false, staleTime: Infinity })

export const useSignUp = (secret: string) =>
  useMutation({ mutationFn: (person: { name: string; email: string; password: string }) => post<User>(`/invite/${seg(secret)}/signup`, person) })
