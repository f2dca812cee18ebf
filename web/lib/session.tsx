// Who is signed in, and what their role lets them do (roles.ts), for every screen to ask; when
// nobody is, how one may sign in (the 401's options: password, single sign-on).
import { useQuery } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext } from 'react'
import { ApiProblem, get } from '../api/client'
import { keys } from '../api/keys'
import type { Me } from '../api/types'
import { personName } from './labels'
import { type Capability, mayIn, type Role, roleOf } from './roles'

export interface Session {
  me: Me
  role: Role
  name: string
  /** What the role may do; in `project` when given, with what a role in that project adds (a Member changes its flags). */
  can: (capability: Capability, project?: string) => boolean
}

/** Another way to sign in than a password: a link the browser follows (single sign-on). */
export interface SignInOption { type: string; message: string; path: string }

/** How one may sign in, as the admin API's 401 says (Unleash's shape). */
export interface SignInHint {
  /** Password login is off (an Admin turned it off; the break-glass admin still has one). */
  passwordHidden: boolean
  options: SignInOption[]
}

/** Someone signed in, or nobody and how to sign in. */
export type SignedIn = { me: Me; hint?: undefined } | { me: null; hint: SignInHint }

const isText = (value: unknown): value is string => typeof value === 'string' && value !== ''

/** The sign-in hint of a 401's body; a body without one means a password form only. */
export function hintOf (body: unknown): SignInHint {
  const hint = (typeof body === 'object' && body !== null ? body : {}) as { defaultHidden?: unknown; options?: unknown }
  const options = Array.isArray(hint.options) ? hint.options : []
  return {
    passwordHidden: hint.defaultHidden === true,
    // Only paths on this server: a sign-in button never sends the browser elsewhere by itself.
    options: options.filter((o): o is SignInOption => isText(o?.type) && isText(o?.message) && isText(o?.path) && o.path.startsWith('/') && !o.path.startsWith('//')),
  }
}

/** What a 401 means for the session: nobody signed in, and how to. */
export const signedOut = (error: ApiProblem): SignedIn => ({ me: null, hint: hintOf(error.body) })

const SessionContext = createContext<Session | null>(null)

export function useSession (): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in screen')
  return session
}

/** The signed-in person, or nobody (401) and how to sign in. */
export function useMe () {
  return useQuery({
    queryKey: keys.me,
    queryFn: async (): Promise<SignedIn> => {
      try {
        return { me: await get<Me>('/api/admin/user') }
      } catch (error) {
        if (error instanceof ApiProblem && error.status === 401) return signedOut(error)
        throw error
      }
    },
    staleTime: 60_000,
  })
}

export function SessionProvider ({ me, children }: { me: Me; children: ReactNode }) {
  const role = roleOf(me)
  const name = personName(me.user)
  const session: Session = { me, role, name, can: (c, project) => mayIn(me, c, project) }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
