import { ListScreen } from '../../components/page'
import { UserDialog, UserList } from '../../features/users/users'

export const UsersScreen = () => (
  <ListScreen title='Users' newLabel='New user' create={(close) => <UserDialog user={null} onClose={close} />}>
    <UserList />
  </ListScreen>
)
