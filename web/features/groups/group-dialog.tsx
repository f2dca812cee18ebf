import { type KeyboardEvent, useRef, useState } from 'react'
import { ROLE_IDS, ROOT_ROLES } from '../../../src/vocabulary/roles'
import { ApiProblem } from '../../api/client'
import { useUsers } from '../../api/reads'
import type { Group } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { errorsAt, QueryStatus } from '../../components/feedback'
import { Checks, GroupErrors, SelectField, TextArea, TextField } from '../../components/form'
import { RowButton } from '../../components/table'
import { useSayAndClose } from '../../lib/announce'
import { useFields } from '../../lib/fields'
import { memberCount, personName, personWithContact } from '../../lib/labels'
import { useSaveGroup } from './api'

/** No root role (members keep their own), then the root roles, least first. */
const ROLE_OPTIONS = [{ value: '', label: 'None' }, ...[...ROOT_ROLES].reverse().map((role) => ({ value: String(ROLE_IDS[role]), label: role }))]

/** How many people the member picker lists at once; typing finds the others. */
const SHOWN_PEOPLE = 50

const SHOWN_AT = ['/name', '/description', '/rootRole', '/mappingsSSO', '/users']

const problemsUnder = (error: unknown, path: string) => (error instanceof ApiProblem ? error.under(path) : [])

/** Enter in a field that is not the form's own (a search, a name to add) does not submit the form. */
const noSubmit = (then?: () => void) => (e: KeyboardEvent) => {
  if (e.key !== 'Enter') return
  e.preventDefault()
  then?.()
}

/** A new group (`group` null), or changes to one. */
export function GroupDialog ({ group, onClose }: { group: Group | null; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const form = useFields({
    name: group?.name ?? '',
    description: group?.description ?? '',
    rootRole: group?.rootRole == null ? '' : String(group.rootRole),
    mappings: group?.mappingsSSO ?? [],
    mapping: '',
    members: group?.users.map((m) => m.user.id) ?? [],
  })
  const { name, description, rootRole, mappings, mapping, members } = form.values
  const save = useSaveGroup(group, done((saved) => (group ? `Group ${saved.name} saved` : `Group ${saved.name} created`)))
  const submit = () => save.mutate({
    name,
    description: description || null,
    rootRole: rootRole === '' ? null : Number(rootRole) as 1 | 2 | 3,
    // A name typed but not added yet is meant too.
    mappingsSSO: [...new Set([...mappings, mapping.trim()].filter(Boolean))],
    users: members.map((id) => ({ user: { id } })),
  })
  return (
    <FormDialog title={group ? `Edit group ${group.name}` : 'New group'} onClose={onClose} wide onSubmit={submit} write={save} shownAt={SHOWN_AT}>
      <TextField label='Name' {...form.field('name')} required autoComplete='off' errors={errorsAt(save.error, '/name')} />
      <TextArea label='Description' {...form.field('description')} rows={2} errors={errorsAt(save.error, '/description')} />
      <SelectField
        label='Root role' {...form.field('rootRole')} options={ROLE_OPTIONS} errors={errorsAt(save.error, '/rootRole')}
        hint="Every member acts with the highest of their own role and their groups' roles"
      />
      <Mappings
        mappings={mappings} onChange={(next) => form.set({ mappings: next })}
        typed={mapping} onType={(next) => form.set({ mapping: next })}
        errors={problemsUnder(save.error, '/mappingsSSO')}
      />
      <Members chosen={members} onChange={(next) => form.set({ members: next })} errors={problemsUnder(save.error, '/users')} />
    </FormDialog>
  )
}

/** The identity provider's group names that put people in this group: added one at a time, each removable. */
function Mappings ({ mappings, onChange, typed, onType, errors }: {
  mappings: string[]
  onChange: (mappings: string[]) => void
  typed: string
  onType: (typed: string) => void
  errors: string[]
}) {
  const adding = useRef<HTMLDivElement>(null)
  const focusName = () => adding.current?.querySelector('input')?.focus()
  const add = () => {
    const next = typed.trim()
    if (next === '') return
    if (!mappings.includes(next)) onChange([...mappings, next])
    onType('')
  }
  const remove = (gone: string) => {
    onChange(mappings.filter((m) => m !== gone))
    // The button is gone with its name: the focus goes where the next one is typed.
    focusName()
  }
  return (
    <fieldset>
      <legend>SSO groups</legend>
      {mappings.length === 0
        ? <p className='muted'>None: only the members chosen below are in this group.</p>
        : (
          <ul className='tags' aria-label='SSO groups of this group'>
            {mappings.map((m) => (
              <li key={m}>
                <span className='badge'>{m}</span>
                <RowButton onClick={() => remove(m)} what={`SSO group ${m}`}>Remove</RowButton>
              </li>
            ))}
          </ul>
          )}
      <div ref={adding}>
        <TextField
          label='SSO group name' value={typed} onChange={onType} onKeyDown={noSubmit(add)} autoComplete='off'
          hint='As the identity provider lists it in the groups claim (Entra ID: the group’s object id); Enter adds it'
        />
      </div>
      <div className='row'>
        <button type='button' className='secondary' onClick={add}>Add SSO group</button>
      </div>
      <GroupErrors errors={errors} />
    </fieldset>
  )
}

/** How many members are chosen, and who (the first ten, once the users are read). */
function chosenSummary (count: number, names: string[]) {
  if (count === 0) return 'No members.'
  const many = memberCount(count)
  if (names.length === 0) return `${many}.`
  return `${many}: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}.`
}

/** The members, picked among every user: a checkbox each, the list narrowed by what is typed. */
function Members ({ chosen, onChange, errors }: { chosen: number[]; onChange: (chosen: number[]) => void; errors: string[] }) {
  const users = useUsers()
  const [query, setQuery] = useState('')
  const q = query.trim().toLowerCase()
  const matching = (users.data ?? []).filter((u) => q === '' || [u.name, u.username, u.email].some((v) => v?.toLowerCase().includes(q)))
  const shown = matching.slice(0, SHOWN_PEOPLE)
  const names = (users.data ?? []).filter((u) => chosen.includes(u.id)).map(personName)
  return (
    <fieldset>
      <legend>Members</legend>
      <p>{chosenSummary(chosen.length, names)}</p>
      <QueryStatus query={users} what='Loading people' />
      {users.data && (
        <>
          <TextField label='Find people' type='search' value={query} onChange={setQuery} onKeyDown={noSubmit()} autoComplete='off' hint='Part of a name, username or email' />
          <div className='member-choices'>
            <Checks choices={shown.map((u) => ({ value: u.id, label: personWithContact(u) }))} chosen={chosen} onChange={onChange} />
          </div>
          {matching.length === 0 && <p className='muted'>Nobody matches.</p>}
          {matching.length > shown.length && <p className='muted'>{shown.length} of {matching.length} shown: type more of a name to find the others.</p>}
        </>
      )}
      <GroupErrors errors={errors} />
    </fieldset>
  )
}
