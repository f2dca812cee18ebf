import { Link } from 'wouter'
import { PageHeading, useTitle } from '../../components/page'
import { useSession } from '../../lib/session'

export function NotFoundScreen () {
  useTitle('Not found')
  return (
    <>
      <PageHeading>Nothing here</PageHeading>
      <p>This address shows no screen. <Link href='/'>Go to the projects</Link>.</p>
    </>
  )
}

/** What a screen the role may not use shows instead of offering what would be refused. */
export function NotAllowedScreen () {
  const session = useSession()
  useTitle('Not allowed')
  return (
    <>
      <PageHeading>Not for your role</PageHeading>
      <p>As {session.role === 'Viewer' ? 'a Viewer' : `an ${session.role}`} you can read flags but not use this screen. An admin can change your role.</p>
    </>
  )
}
