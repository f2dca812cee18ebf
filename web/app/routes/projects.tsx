import { useState } from 'react'
import { PageHeading, useTitle } from '../../components/page'
import { useSession } from '../../lib/session'
import { NewProject, ProjectCards } from '../../features/projects/projects'

export function ProjectsScreen () {
  useTitle('Projects')
  const session = useSession()
  const [creating, setCreating] = useState(false)
  return (
    <>
      <PageHeading actions={session.can('admin') && <button type='button' onClick={() => setCreating(true)}>New project</button>}>Projects</PageHeading>
      <ProjectCards />
      <NewProject open={creating} onClose={() => setCreating(false)} />
    </>
  )
}
