import { useState } from 'react'
import { Link } from 'wouter'
import { seg } from '../../api/client'
import { useProjects } from '../../api/reads'
import { PageHeading, useTitle } from '../../components/page'
import { useSession } from '../../lib/session'
import { FlagList, NewFlag } from '../../features/flags/flag-list'

export function FlagsScreen ({ project }: { project: string }) {
  const projects = useProjects()
  const name = projects.data?.find((p) => p.id === project)?.name ?? project
  useTitle(`Flags of ${name}`)
  const session = useSession()
  const [creating, setCreating] = useState(false)
  const actions = (
    <>
      <Link href={`/projects/${seg(project)}/change-requests`}>Change requests</Link>
      {session.can('admin') && <Link href={`/projects/${seg(project)}/access`}>Access</Link>}
      {session.can('change-flags', project) && <button type='button' onClick={() => setCreating(true)}>New flag</button>}
    </>
  )
  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / {name}</p>
      <PageHeading actions={actions}>
        Flags
      </PageHeading>
      <FlagList project={project} />
      <NewFlag project={project} open={creating} onClose={() => setCreating(false)} />
    </>
  )
}
