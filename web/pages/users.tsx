import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post, put } from '../api'
import { useAnnounce } from '../announce'
import { Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, RowButton, SelectField, submitting, TextField, Time, useConfirmedRemoval, useTitle } from '../components/ui'
import { roleOf } from '../session'
import type { User } from '../types'

const KEY = ['users']

const ROLES = [
  { value: '3', label: 'Viewer — reads everything, changes nothing' },
  { value: '2', label: 'Editor — changes flags, strategies, segments and context fields' },
  { value: '1', label: 'Admin — everything, including people, tokens and webhooks' },
]

const roleName = (u: User) => roleOf({ user: { id: u.id, rootRole: u.rootRole } })
const roleId = (u: User) => String({ Admin: 1, Editor: 2, Viewer: 3 }[roleName(u)])

export function Users () {
  useTitle('Users')
  const users = useQuery({ queryKey: KEY, queryFn: async () => (await get<{ users: User[] }>('/api/admin/user-admin')).users })
  const client = useQueryClient()
  const announce = useAnnounce()
  const [editing, setEditing] = useState<User | 'new' | null>(null)
  const removal = useConfirmedRemoval(
    (u: User) => del(`/api/admin/user-admin/${u.id}`),
    async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('User deleted')
    }
  )
  const label = (u: User) => u.name || u.username || u.email || `user ${u.id}`
  return (
    <>
      <PageHeading actions={<button type='button' onClick={() => setEditing('new')}>New user</button>}>Users</PageHeading>
      <QueryStatus query={users} what='Loading users' />
      {users.data && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Name</th><th scope='col'>Username or email</th><th scope='col'>Role</th><th scope='col'>Last seen</th><th scope='col'><span className='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id}>
                  <th scope='row'>{label(u)}</th>
                  <td>{u.username ?? u.email}</td>
                  <td>{roleName(u)}</td>
                  <td><Time value={u.seenAt} /></td>
                  <td>
                    <div className='row'>
                      <RowButton onClick={() => setEditing(u)} what={label(u)}>Edit</RowButton>
                      <RowButton onClick={() => removal.ask(u)} what={label(u)}>Delete</RowButton>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <UserDialog user={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      <Confirm title={`Delete ${removal.item ? label(removal.item) : ''}?`} confirmLabel='Delete' {...removal.confirm}>
        <p>They are signed out and can no longer sign in; their personal access tokens stop working.</p>
      </Confirm>
    </>
  )
}

function UserDialog ({ user, onClose }: { user: User | null; onClose: () => void }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const [name, setName] = useState(user?.name ?? '')
  const [username, setUsername] = useState(user?.username ?? '')
  const [email, setEmail] = useState(user?.email ?? '')
  const [rootRole, setRootRole] = useState(user ? roleId(user) : '3')
  const [password, setPassword] = useState('')
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name || undefined, email: email || undefined, rootRole: Number(rootRole) }
      if (user) {
        await put(`/api/admin/user-admin/${user.id}`, body)
        if (password) await post(`/api/admin/user-admin/${user.id}/change-password`, { password })
        return
      }
      await post('/api/admin/user-admin', { ...body, username: username || undefined, ...(password ? { password } : {}) })
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('User saved')
      onClose()
    },
  })
  const submit = submitting(() => save.mutate())
  return (
    <Dialog title={user ? 'Edit user' : 'New user'} open onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label='Name' value={name} onChange={setName} autoComplete='off' errors={errorsAt(save.error, '/name')} />
        {!user && <TextField label='Username' value={username} onChange={setUsername} autoComplete='off' errors={errorsAt(save.error, '/username')} />}
        <TextField label='Email' type='email' value={email} onChange={setEmail} autoComplete='off' errors={errorsAt(save.error, '/email')} />
        <SelectField label='Role' value={rootRole} onChange={setRootRole} options={ROLES} errors={errorsAt(save.error, '/rootRole')} />
        <TextField label={user ? 'New password (optional)' : 'Password'} type='password' value={password} onChange={setPassword} autoComplete='new-password' errors={errorsAt(save.error, '/password')} />
        <ErrorAlert error={save.error} shownAt={['/name', '/username', '/email', '/rootRole', '/password']} />
        <FormButtons onCancel={onClose} label='Save' busy={save.isPending} />
      </form>
    </Dialog>
  )
}
