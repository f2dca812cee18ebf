import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { post } from '../api'
import { ErrorAlert, PageHeading, submitting, TextField, useTitle } from '../components/ui'
import { useRefreshSession } from '../session'

export function Login () {
  useTitle('Sign in')
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const refresh = useRefreshSession()
  const login = useMutation({
    mutationFn: () => post('/auth/simple/login', { username, password }),
    onSuccess: () => refresh(),
  })
  const submit = submitting(() => login.mutate())
  return (
    <main className='container narrow' id='main'>
      <PageHeading>Sign in</PageHeading>
      <form onSubmit={submit} noValidate>
        <TextField label='Username' value={username} onChange={setUsername} autoComplete='username' required autoFocus hint='Your username or email address' />
        <TextField label='Password' type='password' value={password} onChange={setPassword} autoComplete='current-password' required />
        {login.isError && <ErrorAlert error={login.error} />}
        <button type='submit' aria-busy={login.isPending || undefined} disabled={login.isPending}>Sign in</button>
      </form>
    </main>
  )
}

export function SignedOut () {
  useTitle('Signed out')
  return (
    <main className='container narrow' id='main'>
      <PageHeading>You are signed out</PageHeading>
      <p>Your session has ended on this browser.</p>
      <p><a href='/'>Sign in again</a></p>
    </main>
  )
}
