import { useState } from 'react'
import { ErrorAlert, errorsAt, Loading } from '../../components/feedback'
import { submitting, TextField } from '../../components/form'
import { useResetLink, useSetPassword, useSignUp, useSignupLink } from './api'

const PASSWORD_HINT = 'At least 10 characters, not a common password, not your username or email'

/** What a link that does not work says, and the way on. */
function DeadLink () {
  return (
    <div role='alert' className='alert error'>
      <p><strong>This link does not work any more.</strong> Links work once, for 24 hours; ask an administrator for a new one.</p>
      <p><a href='/'>Go to sign in</a></p>
    </div>
  )
}

function Done ({ children }: { children: string }) {
  return (
    <div role='status'>
      <p>{children}</p>
      <p><a href='/'>Sign in</a></p>
    </div>
  )
}

/** A reset or invitation link: whose it is, then a new password, twice. */
export function SetPasswordForm ({ token }: { token: string }) {
  const link = useResetLink(token)
  const save = useSetPassword()
  const [password, setPassword] = useState('')
  const [again, setAgain] = useState('')
  const [mismatch, setMismatch] = useState(false)
  if (link.isPending) return <Loading what='Checking the link' />
  if (link.isError) return <DeadLink />
  if (save.isSuccess) return <Done>Your password is set.</Done>
  const who = link.data.name || link.data.email
  const submit = () => {
    setMismatch(password !== again)
    if (password === again) save.mutate({ token, password })
  }
  return (
    <form onSubmit={submitting(submit)} noValidate>
      {who && <p>For <strong>{who}</strong>.</p>}
      <TextField label='New password' type='password' value={password} onChange={setPassword} autoComplete='new-password' required autoFocus hint={PASSWORD_HINT} errors={errorsAt(save.error, '/password')} />
      <TextField label='New password again' type='password' value={again} onChange={setAgain} autoComplete='new-password' required errors={mismatch ? ['The two passwords differ'] : []} />
      {save.isError && <ErrorAlert error={save.error} shownAt={['/password']} />}
      <button type='submit' aria-busy={save.isPending || undefined} disabled={save.isPending}>Set password</button>
    </form>
  )
}

/** A sign-up link: a name, an email and a password make an account (the link's role). */
export function SignUpForm ({ secret }: { secret: string }) {
  const link = useSignupLink(secret)
  const signUp = useSignUp(secret)
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  if (link.isPending) return <Loading what='Checking the link' />
  if (link.isError) return <DeadLink />
  if (signUp.isSuccess) return <Done>Your account is ready.</Done>
  return (
    <form onSubmit={submitting(() => signUp.mutate({ name, email, password }))} noValidate>
      <TextField label='Name' value={name} onChange={setName} autoComplete='name' required autoFocus errors={errorsAt(signUp.error, '/name')} />
      <TextField label='Email' type='email' value={email} onChange={setEmail} autoComplete='email' required errors={errorsAt(signUp.error, '/email')} />
      <TextField label='Password' type='password' value={password} onChange={setPassword} autoComplete='new-password' required hint={PASSWORD_HINT} errors={errorsAt(signUp.error, '/password')} />
      {signUp.isError && <ErrorAlert error={signUp.error} shownAt={['/name', '/email', '/password']} />}
      <button type='submit' aria-busy={signUp.isPending || undefined} disabled={signUp.isPending}>Create account</button>
    </form>
  )
}
