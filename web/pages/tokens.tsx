import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post, seg } from '../api'
import { useAnnounce } from '../announce'
import { Check, Confirm, Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, RowButton, SecretOnce, SelectField, submitting, TextField, Time, useConfirmedRemoval, useTitle } from '../components/ui'
import { useEnvironments, useProjects } from '../queries'
import type { ApiToken } from '../types'

const KEY = ['api-tokens']

const TYPES = [
  { value: 'client', label: 'Client (server SDKs, one environment)' },
  { value: 'frontend', label: 'Frontend (browser and mobile apps, one environment)' },
  { value: 'admin', label: 'Admin (this admin API)' },
]

export function ApiTokens () {
  useTitle('API tokens')
  const tokens = useQuery({ queryKey: KEY, queryFn: async () => (await get<{ tokens: ApiToken[] }>('/api/admin/api-tokens')).tokens })
  const client = useQueryClient()
  const announce = useAnnounce()
  const [creating, setCreating] = useState(false)
  const removal = useConfirmedRemoval(
    (t: ApiToken) => del(`/api/admin/api-tokens/${seg(t.tokenName)}`),
    async (t: ApiToken) => {
      await client.invalidateQueries({ queryKey: KEY })
      announce(`API token ${t.tokenName} deleted`)
    }
  )
  return (
    <>
      <PageHeading actions={<button type='button' onClick={() => setCreating(true)}>New API token</button>}>API tokens</PageHeading>
      <p className='muted'>Tokens for SDKs and scripts. The secret is shown once, when the token is created; only its name is listed here.</p>
      <QueryStatus query={tokens} what='Loading tokens' />
      {tokens.data && (
        <div className='table-scroll'>
          <table>
            <thead><tr><th scope='col'>Name</th><th scope='col'>Type</th><th scope='col'>Projects</th><th scope='col'>Environments</th><th scope='col'>Created</th><th scope='col'><span className='visually-hidden'>Actions</span></th></tr></thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.tokenName}>
                  <th scope='row'>{t.tokenName}</th>
                  <td>{t.type}</td>
                  <td>{t.projects.join(', ').replace('*', 'All')}</td>
                  <td>{t.environments.join(', ').replace('*', 'All')}</td>
                  <td><Time value={t.createdAt} /></td>
                  <td><RowButton onClick={() => removal.ask(t)} what={t.tokenName}>Delete</RowButton></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <NewToken onClose={() => setCreating(false)} />}
      <Confirm
        title={`Delete API token ${removal.item?.tokenName ?? ''}?`}
        confirmLabel='Delete'
        {...removal.confirm}
      >
        <p>Everything that uses it is refused from then on.</p>
      </Confirm>
    </>
  )
}

function NewToken ({ onClose }: { onClose: () => void }) {
  const projects = useProjects()
  const environments = useEnvironments()
  const client = useQueryClient()
  const announce = useAnnounce()
  const [tokenName, setTokenName] = useState('')
  const [type, setType] = useState('client')
  const [allProjects, setAllProjects] = useState(true)
  const [chosen, setChosen] = useState<string[]>([])
  const [environment, setEnvironment] = useState('development')
  const create = useMutation({
    mutationFn: () => post<ApiToken>('/api/admin/api-tokens', {
      tokenName,
      type,
      projects: allProjects ? ['*'] : chosen,
      ...(type === 'admin' ? {} : { environment }),
    }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY })
      announce(`API token ${tokenName} created`)
    },
  })
  const submit = submitting(() => create.mutate())
  return (
    <Dialog title='New API token' open onClose={onClose}>
      {create.data?.secret
        ? (
          <>
            <SecretOnce label={`The secret of ${create.data.tokenName}.`} secret={create.data.secret} />
            <footer><button type='button' onClick={onClose}>Done</button></footer>
          </>
          )
        : (
          <form onSubmit={submit}>
            <TextField label='Token name' value={tokenName} onChange={setTokenName} required hint='Recorded as who made the changes the token makes' errors={errorsAt(create.error, '/tokenName')} />
            <SelectField label='Type' value={type} onChange={setType} options={TYPES} errors={errorsAt(create.error, '/type')} />
            {type !== 'admin' && (
              <SelectField
                label='Environment'
                value={environment}
                onChange={setEnvironment}
                options={(environments.data ?? []).map((e) => ({ value: e.name, label: e.name }))}
                errors={errorsAt(create.error, '/environment')}
              />
            )}
            <fieldset>
              <legend>Projects</legend>
              <Check label='All projects' checked={allProjects} onChange={setAllProjects} />
              {!allProjects && (projects.data ?? []).map((p) => (
                <Check key={p.id} label={p.name} checked={chosen.includes(p.id)} onChange={(on) => setChosen((c) => (on ? [...c, p.id] : c.filter((x) => x !== p.id)))} />
              ))}
            </fieldset>
            <ErrorAlert error={create.error} shownAt={['/tokenName', '/type', '/environment']} />
            <FormButtons onCancel={onClose} label='Create' busy={create.isPending} />
          </form>
          )}
    </Dialog>
  )
}
