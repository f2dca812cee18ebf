import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post } from '../api'
import { useAnnounce } from '../announce'
import { Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, RowButton, SecretOnce, submitting, TextField, Time, useConfirmedRemoval, useTitle } from '../components/ui'
import { useSession } from '../session'
import type { PersonalAccessToken } from '../types'

const KEY = ['personal-access-tokens']

export function Profile () {
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

function AccessTokens () {
  const tokens = useQuery({ queryKey: KEY, queryFn: async () => (await get<{ pats: PersonalAccessToken[] }>('/api/admin/user/tokens')).pats })
  const client = useQueryClient()
  const announce = useAnnounce()
  const [creating, setCreating] = useState(false)
  const removal = useConfirmedRemoval(
    (t: PersonalAccessToken) => del(`/api/admin/user/tokens/${t.id}`),
    async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('Personal access token deleted')
    }
  )
  return (
    <section aria-labelledby='pat-heading'>
      <h2 id='pat-heading'>Personal access tokens</h2>
      <p className='muted'>For scripts that act as you, with your role. The secret is shown once.</p>
      <QueryStatus query={tokens} what='Loading tokens' />
      {tokens.data?.length === 0 && <p>No personal access tokens.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Description</th><th scope='col'>Expires</th><th scope='col'>Last used</th><th scope='col'><span className='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id}>
                  <th scope='row'>{t.description}</th>
                  <td><Time value={t.expiresAt} /></td>
                  <td><Time value={t.seenAt} /></td>
                  <td><RowButton onClick={() => removal.ask(t)} what={t.description}>Delete</RowButton></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button type='button' className='secondary' onClick={() => setCreating(true)}>New personal access token</button>
      {creating && <NewAccessToken onClose={() => setCreating(false)} />}
      <Confirm title='Delete this token?' confirmLabel='Delete' {...removal.confirm}>
        <p>Scripts that use it are refused from then on.</p>
      </Confirm>
    </section>
  )
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

function NewAccessToken ({ onClose }: { onClose: () => void }) {
  const client = useQueryClient()
  const announce = useAnnounce()
  const [description, setDescription] = useState('')
  const [expires, setExpires] = useState(inDays(30))
  const create = useMutation({
    mutationFn: () => post<PersonalAccessToken>('/api/admin/user/tokens', { description, expiresAt: new Date(`${expires}T23:59:59Z`).toISOString() }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce('Personal access token created')
    },
  })
  const submit = submitting(() => create.mutate())
  return (
    <Dialog title='New personal access token' open onClose={onClose}>
      {create.data?.secret
        ? (
          <>
            <SecretOnce label={`The secret of “${create.data.description}”.`} secret={create.data.secret} />
            <footer><button type='button' onClick={onClose}>Done</button></footer>
          </>
          )
        : (
          <form onSubmit={submit}>
            <TextField label='Description' value={description} onChange={setDescription} required hint='What the token is for' errors={errorsAt(create.error, '/description')} />
            <TextField label='Expires on' type='date' value={expires} min={inDays(1)} onChange={setExpires} required errors={errorsAt(create.error, '/expiresAt')} />
            <ErrorAlert error={create.error} shownAt={['/description', '/expiresAt']} />
            <FormButtons onCancel={onClose} label='Create' busy={create.isPending} />
          </form>
          )}
    </Dialog>
  )
}

function ChangePassword () {
  const announce = useAnnounce()
  const [oldPassword, setOldPassword] = useState('')
  const [password, setPassword] = useState('')
  const [confirmPassword, setConfirmPassword] = useState('')
  const change = useMutation({
    mutationFn: () => post('/api/admin/user/change-password', { oldPassword, password, confirmPassword }),
    onSuccess: () => {
      setOldPassword('')
      setPassword('')
      setConfirmPassword('')
      announce('Password changed')
    },
  })
  const mismatch = confirmPassword !== '' && confirmPassword !== password
  const submit = submitting(() => !mismatch && change.mutate())
  return (
    <section aria-labelledby='password-heading'>
      <h2 id='password-heading'>Change password</h2>
      <form onSubmit={submit} className='narrow-form'>
        <TextField label='Current password' type='password' value={oldPassword} onChange={setOldPassword} autoComplete='current-password' required errors={errorsAt(change.error, '/oldPassword')} />
        <TextField label='New password' type='password' value={password} onChange={setPassword} autoComplete='new-password' required errors={errorsAt(change.error, '/password')} />
        <TextField label='New password again' type='password' value={confirmPassword} onChange={setConfirmPassword} autoComplete='new-password' required errors={mismatch ? ['The two new passwords differ.'] : errorsAt(change.error, '/confirmPassword')} />
        <ErrorAlert error={change.error} shownAt={['/oldPassword', '/password', '/confirmPassword']} />
        <button type='submit' disabled={mismatch} aria-busy={change.isPending || undefined}>Change password</button>
      </form>
    </section>
  )
}
