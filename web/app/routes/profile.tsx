import { PageHeading, useTitle } from '../../components/page'
import { useSession } from '../../lib/session'
import { AccessTokens } from '../../features/profile/access-tokens'
import { ChangePassword } from '../../features/profile/change-password'

export function ProfileScreen () {
  useTitle('Profile')
  const session = useSession()
  return (
    <>
      <PageHeading>Profile</PageHeading>
      <p>Signed in as <strong>{session.name}</strong>{session.me.user.email ? ` (${session.me.user.email})` : ''}, role <strong>{session.role}</strong>.</p>
      <AccessTokens />
      <ChangePassword />
    </>
  )
}
