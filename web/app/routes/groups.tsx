import { Link } from 'wouter'
import { ListScreen } from '../../components/page'
import { GroupDialog } from '../../features/groups/group-dialog'
import { GroupList } from '../../features/groups/groups'

export const GroupsScreen = () => (
  <ListScreen
    title='Groups'
    newLabel='New group'
    intro={<>A group gives its members a root role. Its SSO groups put people in it when they sign in, but only while group syncing is on in <Link href='/single-sign-on'>Single sign-on</Link>.</>}
    create={(close) => <GroupDialog group={null} onClose={close} />}
  >
    <GroupList />
  </ListScreen>
)
