// Who is signed in, and what their role lets them do (roles.ts), for every screen to ask.
import { useQuery } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext } from 'react'
import { ApiProblem, get } from '../api/client'
import { keys } from '../api/keys'
import type { Me } from '../api/types'
import { personName } from './labels'
import { type Capability, may, type Role, roleOf } from './roles'

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

/** The signed-in person, or null when the API says nobody is (401). */
export function useMe () {
  return useQuery({
    queryKey: keys.me,
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
  const name = personName(me.user)
  const session: Session = { me, role, name, can: (c) => may(role, c) }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
