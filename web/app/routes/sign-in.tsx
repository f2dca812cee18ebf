import { PageHeading, useTitle } from '../../components/page'
import { SignInForm } from '../../features/sign-in/sign-in'

export function SignInScreen () {
  useTitle('Sign in')
  return (
    <main className='container narrow' id='main'>
      <PageHeading>Sign in</PageHeading>
      <SignInForm />
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
