import { post } from '../../api/client'
import { keys } from '../../api/keys'
import { useWrite } from '../../api/write'

export interface Credentials { username: string; password: string }

/** Signing in sets the session cookie and changes who is signed in: the app reads that again. */
export const useSignIn = () => useWrite((credentials: Credentials) => post('/auth/simple/login', credentials), () => [keys.me])
