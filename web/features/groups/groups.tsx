import { rootRoleById } from '../../../src/vocabulary/roles'
import { useGroups } from '../../api/reads'
import type { Group } from '../../api/types'
import { EditableTable } from '../../components/editable-table'
import { useAnnounce } from '../../lib/announce'
import { memberCount } from '../../lib/labels'
import { useDeleteGroup } from './api'
import { GroupDialog } from './group-dialog'

const whoLoses = (g: Group) => {
  if (g.userCount === 0) return 'It has no members.'
  return `${g.userCount === 1 ? 'Its member loses' : `Its ${g.userCount} members lose`} the roles it gives at their next request.`
}

/** Every group with what it gives its members; an Admin may change and delete them. */
export function GroupList () {
  const announce = useAnnounce()
  const groups = useGroups()
  const remove = useDeleteGroup({ onSuccess: (_d, g) => announce(`Group ${g.name} deleted`) })
  return (
    <EditableTable
      query={groups} what='Loading groups'
      empty='No groups yet.'
      rowKey={(g) => g.id}
      rowHeader={{ label: 'Name', cell: (g) => g.name }}
      columns={[
        { label: 'Description', cell: (g) => g.description || <span className='muted'>none</span> },
        { label: 'Root role', cell: (g) => (g.rootRole === null ? <span className='muted'>none</span> : rootRoleById(g.rootRole) ?? `role ${g.rootRole}`) },
        { label: 'SSO groups', cell: (g) => (g.mappingsSSO.length === 0 ? <span className='muted'>none</span> : g.mappingsSSO.join(', ')) },
        { label: 'Members', cell: (g) => memberCount(g.userCount) },
      ]}
      mayChange
      name={(g) => g.name}
      edit={(g, close) => <GroupDialog group={g} onClose={close} />}
      remove={{
        write: remove,
        title: (g) => `Delete group ${g.name}?`,
        body: (g) => <p>{whoLoses(g)} Signing in no longer puts anyone in it.</p>,
      }}
    />
  )
}
