// Who is signed in, and what their role lets them do. The API decides; the UI only leaves out
// what the role may not do, so that nobody is offered a button that can only fail.
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext } from 'react'
import { ApiProblem, get } from './api'
import type { Me, Role } from './types'

/** Unleash's predefined root roles, by id. */
const ROLE_BY_ID: Record<number, Role> = { 1: 'Admin', 2: 'Editor', 3: 'Viewer' }

export function roleOf (me: Me): Role {
  const root = me.user.rootRole
  if (typeof root === 'number' && ROLE_BY_ID[root]) return ROLE_BY_ID[root]
  if (root === 'Admin' || root === 'Editor' || root === 'Viewer') return root
  if (me.permissions?.some((p) => p.permission === 'ADMIN')) return 'Admin'
  return 'Viewer'
}

/** What a role may do, in the UI's terms. */
export type Capability = 'change-flags' | 'admin'

const ALLOWED: Record<Role, Capability[]> = {
  Admin: ['change-flags', 'admin'],
  Editor: ['change-flags'],
  Viewer: [],
}

export interface Session {
  me: Me
  role: Role
  name: string
  can: (capability: Capability) => boolean
}

const SessionContext = createContext<Session | null>(null)

export function useSession (): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in screen')
  return session
}

export const ME_KEY = ['me'] as const

/** The signed-in person, or null when the API says nobody is (401). */
export function useMe () {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async () => {
      try {
        return await get<Me>('/api/admin/user')
      } catch (error) {
        if (error instanceof ApiProblem && error.status === 401) return null
        throw error
      }
    },
    staleTime: 60_000,
  })
}

export function SessionProvider ({ me, children }: { me: Me; children: ReactNode }) {
  const role = roleOf(me)
  const name = me.user.name || me.user.username || me.user.email || `user ${me.user.id}`
  const session: Session = { me, role, name, can: (c) => ALLOWED[role].includes(c) }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

/** After sign-in, sign-out or a 401: read who is signed in again. */
export function useRefreshSession () {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: ME_KEY })
}
