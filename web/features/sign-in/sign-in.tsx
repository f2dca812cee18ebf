import { useState } from 'react'
import { ErrorAlert } from '../../components/feedback'
import { submitting, TextField } from '../../components/form'
import type { SignInOption } from '../../lib/session'
import { useSignIn } from './api'

/** The sign-in form; once signed in, the app shows the screens. */
export function SignInForm () {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const login = useSignIn()
  return (
    <form onSubmit={submitting(() => login.mutate({ username, password }))} noValidate>
      <TextField label='Username' value={username} onChange={setUsername} autoComplete='username' required autoFocus hint='Your username or email address' />
      <TextField label='Password' type='password' value={password} onChange={setPassword} autoComplete='current-password' required />
      {login.isError && <ErrorAlert error={login.error} />}
      <button type='submit' aria-busy={login.isPending || undefined} disabled={login.isPending}>Sign in</button>
    </form>
  )
}

/**
 * Single sign-on: a link per way the server offers ("Sign in with OpenID Connect"), a plain
 * navigation to the provider and back, landing on the address that asked to sign in.
 */
export function SignInOptions ({ options }: { options: SignInOption[] }) {
  if (options.length === 0) return null
  // Back to the address that asked to sign in; from the sign-in screen itself (/login, where a
  // refused sign-in lands), to the start.
  const here = window.location.pathname === '/login' ? '/' : `${window.location.pathname}${window.location.search}`
  return (
    <>
      <ul className='sign-in-options' aria-label='Ways to sign in'>
        {options.map((o) => (
          <li key={o.path}>
            <a role='button' href={`${o.path}?redirect=${encodeURIComponent(here)}`}>{o.message}</a>
          </li>
        ))}
      </ul>
      <p className='or'>or</p>
    </>
  )
}
