import { useGroups } from '../../api/reads'
import type { ProjectAccess } from '../../api/types'
import { Confirm, useConfirmedRemoval } from '../../components/dialog'
import { QueryStatus, Time } from '../../components/feedback'
import { RowButton, Table } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { memberCount, personName } from '../../lib/labels'
import { type Grantee, useProjectAccess, useRemoveRole } from './api'
import { roleWords } from './words'

type Person = ProjectAccess['users'][number]
type Group = ProjectAccess['groups'][number]

/** What a person or a group no longer has once their role here is taken away. */
function Loss ({ access, grantee, project }: { access: ProjectAccess; grantee: Grantee; project: string }) {
  if (grantee.kind === 'user') {
    const roles = roleWords(access, access.users.find((u) => u.id === grantee.id)?.roles ?? [])
    return <p>{grantee.name} loses the {roles} role in {project} at their next request: what their root role allows stays (a Viewer can no longer change this project’s flags).</p>
  }
  const roles = roleWords(access, access.groups.find((g) => g.id === grantee.id)?.roles ?? [])
  return <p>Its members lose the {roles} role this group gives them in {project} at their next request, unless they hold it themselves or through another group.</p>
}

/** Who has a role in the project: a table of people and one of groups, each row removable (asked first). */
export function ProjectAccessList ({ project }: { project: string }) {
  const announce = useAnnounce()
  const access = useProjectAccess(project)
  const groups = useGroups()
  const removal = useConfirmedRemoval(useRemoveRole(project, { onSuccess: (_d, g) => announce(`${g.name} no longer has a role in ${project}`) }))
  if (!access.data) return <QueryStatus query={access} what='Loading who has access' />
  const data = access.data
  const roleCell = (item: Person | Group) => roleWords(data, item.roles)
  const members = (g: Group) => {
    const count = groups.data?.find((x) => x.id === g.id)?.userCount
    return count === undefined ? <span className='muted'>unknown</span> : memberCount(count)
  }
  const remove = (grantee: Grantee) => <RowButton onClick={() => removal.ask(grantee)} what={grantee.name}>Remove</RowButton>
  return (
    <>
      <section aria-labelledby='access-people'>
        <h2 id='access-people'>People</h2>
        {data.users.length === 0
          ? <p>Nobody has a role of their own in this project.</p>
          : (
            <Table
              items={data.users}
              rowKey={(u) => u.id}
              rowHeader={{ label: 'Name', cell: personName }}
              columns={[
                { label: 'Email or username', cell: (u) => u.email ?? u.username },
                { label: 'Role in this project', cell: roleCell },
                { label: 'Since', cell: (u) => <Time value={u.addedAt} /> },
              ]}
              actions={(u) => remove({ kind: 'user', id: u.id, name: personName(u) })}
            />
            )}
      </section>
      <section aria-labelledby='access-groups'>
        <h2 id='access-groups'>Groups</h2>
        {data.groups.length === 0
          ? <p>No group has a role in this project.</p>
          : (
            <Table
              items={data.groups}
              rowKey={(g) => g.id}
              rowHeader={{ label: 'Name', cell: (g) => g.name }}
              columns={[
                { label: 'Members', cell: members },
                { label: 'SSO groups', cell: (g) => (g.mappingsSSO.length === 0 ? <span className='muted'>none</span> : g.mappingsSSO.join(', ')) },
                { label: 'Role in this project', cell: roleCell },
                { label: 'Since', cell: (g) => <Time value={g.addedAt} /> },
              ]}
              actions={(g) => remove({ kind: 'group', id: g.id, name: g.name })}
            />
            )}
      </section>
      <Confirm
        title={removal.item === null ? '' : `Remove ${removal.item.kind === 'user' ? '' : 'group '}${removal.item.name} from ${project}?`}
        confirmLabel='Remove' {...removal.confirm}
      >
        {removal.item !== null && <Loss access={data} grantee={removal.item} project={project} />}
      </Confirm>
    </>
  )
}
