import { PageHeading, useTitle } from '../../components/page'
import { SignInForm, SignInOptions } from '../../features/sign-in/sign-in'
import type { SignInHint } from '../../lib/session'
import { SIGN_IN_PROBLEMS, type SignInProblem } from '../../../src/vocabulary/oidc'

/** Why the last single sign-on did not complete, when the server sent the browser here saying so (?sso=). */
function signInProblem (): string | undefined {
  const reason = new URLSearchParams(window.location.search).get('sso')
  return reason !== null && Object.hasOwn(SIGN_IN_PROBLEMS, reason) ? SIGN_IN_PROBLEMS[reason as SignInProblem] : undefined
}

/** Nobody is signed in: the ways to sign in the server offers, then back to the address asked for. */
export function SignInScreen ({ hint }: { hint: SignInHint }) {
  useTitle('Sign in')
  const problem = signInProblem()
  return (
    <main className='container narrow' id='main'>
      <PageHeading>Sign in</PageHeading>
      {problem !== undefined && <div role='alert' className='alert error'><p><strong>{problem}</strong></p></div>}
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
