import { rootRoleById } from '../../../src/vocabulary/roles'
import { useGroups, useUsers } from '../../api/reads'
import type { ProjectAccess } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { errorsAt, QueryStatus } from '../../components/feedback'
import { SelectField } from '../../components/form'
import { useSayAndClose } from '../../lib/announce'
import { useFields } from '../../lib/fields'
import { memberCount, personName, personWithContact } from '../../lib/labels'
import { type Grantee, useGiveRole, useProjectAccess } from './api'
import { roleWords } from './words'

type Kind = Grantee['kind']

const KIND_OPTIONS = [{ value: 'user', label: 'A person' }, { value: 'group', label: 'A group' }]

/** Who holds `role` here already (their ids), and who of that kind may be given it: everyone else. */
function candidates (kind: Kind, role: number, access: ProjectAccess, people: ReturnType<typeof useUsers>['data'], groups: ReturnType<typeof useGroups>['data']) {
  const holders = new Set((kind === 'user' ? access.users : access.groups).filter((h) => h.roles.includes(role)).map((h) => h.id))
  const offered = kind === 'user'
    ? (people ?? []).filter((u) => !holders.has(u.id)).map((u) => ({ id: u.id, name: personName(u), label: `${personWithContact(u)}, ${rootRoleById(u.rootRole) ?? 'Viewer'}` }))
    : (groups ?? []).filter((g) => !holders.has(g.id)).map((g) => ({ id: g.id, name: g.name, label: `${g.name} (${memberCount(g.userCount)})` }))
  return { held: holders.size, offered }
}

/** Gives a person or a group a role in the project: whom, and which of the project roles. */
export function AccessDialog ({ project, onClose }: { project: string; onClose: () => void }) {
  const access = useProjectAccess(project)
  const people = useUsers()
  const groups = useGroups()
  const done = useSayAndClose(onClose)
  const form = useFields({ kind: 'user' as Kind, who: '', role: '' })
  const { kind, who, role } = form.values
  const give = useGiveRole(project, done((_d, { grantee, role: given }) => `${grantee.name} is now ${access.data ? roleWords(access.data, [given]) : 'given a role'} in ${project}`))
  const read = kind === 'user' ? people : groups
  const roles = access.data?.roles ?? []
  const roleId = Number(role || roles[0]?.id)
  const { held, offered } = access.data ? candidates(kind, roleId, access.data, people.data, groups.data) : { held: 0, offered: [] }
  const noun = kind === 'user' ? 'Person' : 'Group'
  const chosen = offered.find((c) => String(c.id) === who)
  const submit = () => {
    if (chosen) give.mutate({ grantee: { kind, id: chosen.id, name: chosen.name }, role: roleId })
  }
  const ready = access.data !== undefined && read.data !== undefined
  return (
    <FormDialog
      title='Add access' onClose={onClose} onSubmit={submit} write={give} shownAt={['/roles']}
      submitLabel='Add access' disabled={!ready || offered.length === 0}
    >
      <SelectField label='Give a role to' value={kind} onChange={(next) => form.set({ kind: next as Kind, who: '' })} options={KIND_OPTIONS} />
      <QueryStatus query={access} what='Loading who has access' />
      <QueryStatus query={read} what={kind === 'user' ? 'Loading people' : 'Loading groups'} />
      {ready && (
        <>
          <SelectField
            label='Role in this project' {...form.field('role')} value={String(roleId)} errors={errorsAt(give.error, '/roles')}
            options={roles.map((r) => ({ value: String(r.id), label: r.name }))}
            hint={roles.find((r) => r.id === roleId)?.description}
          />
          {offered.length === 0
            ? <p>{kind === 'user' ? 'Everyone' : 'Every group'} already has the {roleWords(access.data, [roleId])} role in this project.</p>
            : (
              <SelectField
                label={noun} {...form.field('who')} required
                options={[{ value: '', label: kind === 'user' ? 'Choose a person' : 'Choose a group' }, ...offered.map((c) => ({ value: String(c.id), label: c.label }))]}
                hint={held > 0 ? `${roleHolders(kind, held)} already ${roleWords(access.data, [roleId])} here and not listed.` : undefined}
              />
              )}
        </>
      )}
    </FormDialog>
  )
}

const roleHolders = (kind: Kind, count: number) => {
  if (kind === 'user') return count === 1 ? '1 person is' : `${count} people are`
  return count === 1 ? '1 group is' : `${count} groups are`
}
