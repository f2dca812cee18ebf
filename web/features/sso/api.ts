import { useQuery } from '@tanstack/react-query'
import { get, post } from '../../api/client'
import { keys } from '../../api/keys'
import type { OidcSettings, PasswordAuth } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export type OidcChange = Partial<Omit<OidcSettings, 'lockedBy' | 'secret' | 'defaultRootRoleId'>> & { secret?: string }

export const useOidcSettings = () =>
  useQuery({ queryKey: keys.oidcSettings, queryFn: () => get<OidcSettings>('/api/admin/auth/oidc/settings') })

/** Saving changes how people sign in: the sign-in options and the settings are read again. */
export const useSaveOidcSettings = (after?: AfterWrite<OidcChange, OidcSettings>) =>
  useWrite((change: OidcChange) => post<OidcSettings>('/api/admin/auth/oidc/settings', change), () => [keys.oidcSettings, keys.passwordAuth], after)

export const usePasswordAuth = () =>
  useQuery({ queryKey: keys.passwordAuth, queryFn: () => get<PasswordAuth>('/api/admin/auth/simple/settings') })

export const useSavePasswordAuth = (after?: AfterWrite<PasswordAuth, PasswordAuth>) =>
  useWrite((change: PasswordAuth) => post<PasswordAuth>('/api/admin/auth/simple/settings', change), () => [keys.passwordAuth], after)
