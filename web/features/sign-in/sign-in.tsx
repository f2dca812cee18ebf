import { useState } from 'react'
import { ErrorAlert } from '../../components/feedback'
import { submitting, TextField } from '../../components/form'
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
