import { useState } from 'react'
import type { TokenType } from '../../../src/access/scope'
import { useEnvironments, useProjects } from '../../api/reads'
import { Confirm, FormDialog, useConfirmedRemoval } from '../../components/dialog'
import { errorsAt, Time } from '../../components/feedback'
import { Check, Checks, SelectField, TextField } from '../../components/form'
import { SecretThenDone } from '../../components/secret'
import { QueryTable, RowButton } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { environmentOptions, projectOptions } from '../../lib/labels'
import { useApiTokens, useCreateApiToken, useDeleteApiToken } from './api'

const TYPES: Record<TokenType, string> = {
  client: 'Client (server SDKs, one environment)',
  frontend: 'Frontend (browser and mobile apps, one environment)',
  admin: 'Admin (this admin API)',
}

const TYPE_OPTIONS = Object.entries(TYPES).map(([value, label]) => ({ value, label }))

/** `*` in a scope means all. */
const scope = (names: string[]) => names.join(', ').replace('*', 'All')

/** Every API token by name (never its secret), each deletable. */
export function ApiTokenList () {
  const tokens = useApiTokens()
  const announce = useAnnounce()
  const removal = useConfirmedRemoval(useDeleteApiToken({ onSuccess: (_d, t) => announce(`API token ${t.tokenName} deleted`) }))
  return (
    <>
      <QueryTable
        query={tokens} what='Loading tokens'
        rowKey={(t) => t.tokenName}
        rowHeader={{ label: 'Name', cell: (t) => t.tokenName }}
        columns={[
          { label: 'Type', cell: (t) => t.type },
          { label: 'Projects', cell: (t) => scope(t.projects) },
          { label: 'Environments', cell: (t) => scope(t.environment.split(',')) },
          { label: 'Created', cell: (t) => <Time value={t.createdAt} /> },
          { label: 'Expires', cell: (t) => (t.expiresAt === null ? 'Never' : <Time value={t.expiresAt} />) },
        ]}
        actions={(t) => <RowButton onClick={() => removal.ask(t)} what={t.tokenName}>Delete</RowButton>}
      />
      <Confirm title={`Delete API token ${removal.item?.tokenName ?? ''}?`} confirmLabel='Delete' {...removal.confirm}>
        <p>Everything that uses it is refused from then on.</p>
      </Confirm>
    </>
  )
}

/** A new API token: its secret is shown once, when it is made. */
export function NewApiToken ({ onClose }: { onClose: () => void }) {
  const projects = useProjects()
  const environments = useEnvironments()
  const announce = useAnnounce()
  const [tokenName, setTokenName] = useState('')
  const [type, setType] = useState<TokenType>('client')
  const [allProjects, setAllProjects] = useState(true)
  const [chosen, setChosen] = useState<string[]>([])
  const [environment, setEnvironment] = useState('development')
  const create = useCreateApiToken({ onSuccess: (_d, t) => announce(`API token ${t.tokenName} created`) })
  const submit = () => create.mutate({ tokenName, type, projects: allProjects ? ['*'] : chosen, ...(type === 'admin' ? {} : { environment }) })
  return (
    <FormDialog
      title='New API token'
      onClose={onClose}
      onSubmit={submit}
      write={create}
      shownAt={['/tokenName', '/type', '/environment']}
      submitLabel='Create'
      done={create.data && <SecretThenDone label={`The secret of ${create.data.tokenName}.`} secret={create.data.secret} onDone={onClose} />}
    >
      <TextField label='Token name' value={tokenName} onChange={setTokenName} required hint='Recorded as who made the changes the token makes' errors={errorsAt(create.error, '/tokenName')} />
      <SelectField label='Type' value={type} onChange={(t) => setType(t as TokenType)} options={TYPE_OPTIONS} errors={errorsAt(create.error, '/type')} />
      {type !== 'admin' && (
        <SelectField label='Environment' value={environment} onChange={setEnvironment} options={environmentOptions(environments.data)} errors={errorsAt(create.error, '/environment')} />
      )}
      <fieldset>
        <legend>Projects</legend>
        <Check label='All projects' checked={allProjects} onChange={setAllProjects} />
        {!allProjects && <Checks choices={projectOptions(projects.data)} chosen={chosen} onChange={setChosen} />}
      </fieldset>
    </FormDialog>
  )
}
