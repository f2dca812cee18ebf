import { PageHeading, useTitle } from '../../components/page'
import { SetPasswordForm, SignUpForm } from '../../features/password-links/password-links'

/**
 * The links an Admin hands on, opened by someone not signed in: /reset-password?token=… and
 * /new-user?token=… set a password; /new-user?invite=… (a sign-up link) makes an account.
 */
export function PasswordLinkScreen ({ path }: { path: string }) {
  const query = new URLSearchParams(window.location.search)
  const invite = path === '/new-user' ? query.get('invite') : null
  const title = invite ? 'Create your account' : path === '/new-user' ? 'Welcome: set your password' : 'Set a new password'
  useTitle(title)
  return (
    <main className='container narrow' id='main'>
      <PageHeading>{title}</PageHeading>
      {invite ? <SignUpForm secret={invite} /> : <SetPasswordForm token={query.get('token') ?? ''} />}
    </main>
  )
}
