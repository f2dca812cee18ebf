import { ROLE_IDS, ROOT_ROLES, rootRoleById } from '../../../src/vocabulary/roles'
import { useUsers } from '../../api/reads'
import type { User } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { EditableTable } from '../../components/editable-table'
import { errorsAt, Time } from '../../components/feedback'
import { SelectField, TextField } from '../../components/form'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { useFields } from '../../lib/fields'
import { personName, ROLE_MEANINGS } from '../../lib/labels'
import { useDeleteUser, useSaveUser } from './api'

/** The root roles, least first: what a new user gets unless chosen otherwise comes first. */
const ROLE_OPTIONS = [...ROOT_ROLES].reverse().map((role) => ({ value: String(ROLE_IDS[role]), label: `${role} — ${ROLE_MEANINGS[role]}` }))

const roleName = (u: User) => rootRoleById(u.rootRole) ?? 'Viewer'

/** Every user with their role and when they were last seen; an Admin may change and delete them. */
export function UserList () {
  const announce = useAnnounce()
  const users = useUsers()
  const remove = useDeleteUser({ onSuccess: () => announce('User deleted') })
  return (
    <EditableTable
      query={users} what='Loading users'
      rowKey={(u) => u.id}
      rowHeader={{ label: 'Name', cell: personName }}
      columns={[
        { label: 'Username or email', cell: (u) => u.username ?? u.email },
        { label: 'Role', cell: roleName },
        { label: 'Last seen', cell: (u) => <Time value={u.seenAt} /> },
      ]}
      mayChange
      name={personName}
      edit={(u, close) => <UserDialog user={u} onClose={close} />}
      remove={{
        write: remove,
        title: (u) => `Delete ${personName(u)}?`,
        body: () => <p>They are signed out and can no longer sign in; their personal access tokens stop working.</p>,
      }}
    />
  )
}

/** A new user (`user` null), or changes to one. */
export function UserDialog ({ user, onClose }: { user: User | null; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const form = useFields({
    name: user?.name ?? '',
    username: user?.username ?? '',
    email: user?.email ?? '',
    rootRole: String(ROLE_IDS[user ? roleName(user) : 'Viewer']),
    password: '',
  })
  const { name, username, email, rootRole, password } = form.values
  const save = useSaveUser(user, done(() => 'User saved'))
  const submit = () => save.mutate({ name: name || undefined, email: email || undefined, rootRole: Number(rootRole), username: username || undefined, password })
  return (
    <FormDialog title={user ? 'Edit user' : 'New user'} onClose={onClose} onSubmit={submit} write={save} shownAt={['/name', '/username', '/email', '/rootRole', '/password']}>
      <TextField label='Name' {...form.field('name')} autoComplete='off' errors={errorsAt(save.error, '/name')} />
      {!user && <TextField label='Username' {...form.field('username')} autoComplete='off' errors={errorsAt(save.error, '/username')} />}
      <TextField label='Email' type='email' {...form.field('email')} autoComplete='off' errors={errorsAt(save.error, '/email')} />
      <SelectField label='Role' {...form.field('rootRole')} options={ROLE_OPTIONS} errors={errorsAt(save.error, '/rootRole')} />
      <TextField label={user ? 'New password (optional)' : 'Password'} type='password' {...form.field('password')} autoComplete='new-password' errors={errorsAt(save.error, '/password')} />
    </FormDialog>
  )
}
