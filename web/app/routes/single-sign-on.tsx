import { PageHeading, useTitle } from '../../components/page'
import { OidcSettingsForm, PasswordSignIn } from '../../features/sso/oidc-settings'

export function SingleSignOnScreen () {
  useTitle('Single sign-on')
  return (
    <>
      <PageHeading>Single sign-on</PageHeading>
      <OidcSettingsForm />
      <PasswordSignIn />
    </>
  )
}
