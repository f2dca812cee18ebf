import { useState } from 'react'
import { Confirm, FormDialog, useConfirmedRemoval } from '../../components/dialog'
import { errorsAt, Time } from '../../components/feedback'
import { TextField } from '../../components/form'
import { SecretThenDone } from '../../components/secret'
import { QueryTable, RowButton } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { useAccessTokens, useCreateAccessToken, useDeleteAccessToken } from './api'

/** The signed-in person's personal access tokens, made and deleted here. */
export function AccessTokens () {
  const tokens = useAccessTokens()
  const announce = useAnnounce()
  const [creating, setCreating] = useState(false)
  const removal = useConfirmedRemoval(useDeleteAccessToken({ onSuccess: () => announce('Personal access token deleted') }))
  return (
    <section aria-labelledby='pat-heading'>
      <h2 id='pat-heading'>Personal access tokens</h2>
      <p className='muted'>For scripts that act as you, with your role. The secret is shown once.</p>
      <QueryTable
        query={tokens} what='Loading tokens' empty='No personal access tokens.'
        rowKey={(t) => t.id}
        rowHeader={{ label: 'Description', cell: (t) => t.description }}
        columns={[
          { label: 'Expires', cell: (t) => <Time value={t.expiresAt} /> },
          { label: 'Last used', cell: (t) => <Time value={t.seenAt} /> },
        ]}
        actions={(t) => <RowButton onClick={() => removal.ask(t)} what={t.description}>Delete</RowButton>}
      />
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
  const announce = useAnnounce()
  const [description, setDescription] = useState('')
  const [expires, setExpires] = useState(inDays(30))
  const create = useCreateAccessToken({ onSuccess: () => announce('Personal access token created') })
  return (
    <FormDialog
      title='New personal access token'
      onClose={onClose}
      onSubmit={() => create.mutate({ description, expiresAt: new Date(`${expires}T23:59:59Z`).toISOString() })}
      write={create}
      shownAt={['/description', '/expiresAt']}
      submitLabel='Create'
      done={create.data && <SecretThenDone label={`The secret of “${create.data.description}”.`} secret={create.data.secret} onDone={onClose} />}
    >
      <TextField label='Description' value={description} onChange={setDescription} required hint='What the token is for' errors={errorsAt(create.error, '/description')} />
      <TextField label='Expires on' type='date' value={expires} min={inDays(1)} onChange={setExpires} required errors={errorsAt(create.error, '/expiresAt')} />
    </FormDialog>
  )
}
