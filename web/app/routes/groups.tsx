import { Link } from 'wouter'
import { ListScreen } from '../../components/page'
import { GroupDialog } from '../../features/groups/group-dialog'
import { GroupList } from '../../features/groups/groups'
import { useOidcSettings } from '../../features/sso/api'

/** Whether signing in puts people in groups now: group syncing in the single sign-on settings. */
function Syncing () {
  const settings = useOidcSettings()
  const sso = <Link href='/single-sign-on'>Single sign-on</Link>
  if (settings.data?.enabled && settings.data.enableGroupSyncing) return <>Group syncing is on in {sso}: signing in puts people in the groups whose SSO groups the identity provider lists for them.</>
  if (settings.data) return <>Group syncing is off in {sso}: SSO groups put nobody in a group until it is on there.</>
  return <>SSO groups put people in a group when they sign in, only while group syncing is on in {sso}.</>
}

export const GroupsScreen = () => (
  <ListScreen
    title='Groups'
    newLabel='New group'
    intro={<>A group gives its members a root role. <Syncing /></>}
    create={(close) => <GroupDialog group={null} onClose={close} />}
  >
    <GroupList />
  </ListScreen>
)
