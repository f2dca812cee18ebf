import { PageHeading, useTitle } from '../../components/page'
import { SignInForm, SignInOptions } from '../../features/sign-in/sign-in'
import type { SignInHint } from '../../lib/session'

/** Nobody is signed in: the ways to sign in the server offers, then back to the address asked for. */
export function SignInScreen ({ hint }: { hint: SignInHint }) {
  useTitle('Sign in')
  return (
    <main className='container narrow' id='main'>
      <PageHeading>Sign in</PageHeading>
      <SignInOptions options={hint.options} />
      {hint.passwordHidden
        ? (
          <details>
            <summary>Sign in with a password (administrators)</summary>
            <SignInForm />
          </details>
          )
        : <SignInForm />}
    </main>
  )
}

export function SignedOutScreen () {
  useTitle('Signed out')
  return (
    <main className='container narrow' id='main'>
      <PageHeading>You are signed out</PageHeading>
      <p>Your session has ended on this browser.</p>
      <p><a href='/'>Sign in again</a></p>
    </main>
  )
}
