import { Link } from 'wouter'
import { seg } from '../../api/client'
import { useProjects } from '../../api/reads'
import { ListScreen } from '../../components/page'
import { AccessDialog } from '../../features/project-access/access-dialog'
import { ProjectAccessList } from '../../features/project-access/project-access'

/** Who has a role in a project on top of their root role, and giving or taking one away (Admins). */
export function ProjectAccessScreen ({ project }: { project: string }) {
  const projects = useProjects()
  const name = projects.data?.find((p) => p.id === project)?.name ?? project
  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{name}</Link> / Access</p>
      <ListScreen
        title={`Access to ${name}`}
        newLabel='Add access'
        intro={<>A role in this project adds to a person’s root role, here only: a Viewer who is a Member here switches this project’s flags and changes their strategies, variants, dependencies and lifecycle. Admins and Editors already may. A group’s role here goes to each of its members.</>}
        create={(close) => <AccessDialog project={project} onClose={close} />}
      >
        <ProjectAccessList project={project} />
      </ListScreen>
    </>
  )
}
