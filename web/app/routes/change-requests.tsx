import { Link, useLocation } from 'wouter'
import { seg } from '../../api/client'
import { useProjects } from '../../api/reads'
import { PageHeading, useTitle } from '../../components/page'
import { ChangeRequestList, ChangeRequestSettings } from '../../features/change-requests/change-request-list'
import { ChangeRequestReview } from '../../features/change-requests/change-request-review'

/** A project's change requests, and which of its environments need them. */
export function ChangeRequestsScreen ({ project }: { project: string }) {
  const projects = useProjects()
  const name = projects.data?.find((p) => p.id === project)?.name ?? project
  useTitle(`Change requests of ${name}`)
  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{name}</Link> / Change requests</p>
      <PageHeading>Change requests</PageHeading>
      <ChangeRequestList project={project} />
      <ChangeRequestSettings project={project} />
    </>
  )
}

/** One change request, to review, apply or schedule. */
export function ChangeRequestScreen ({ project, id }: { project: string; id: string }) {
  const [, navigate] = useLocation()
  useTitle(`Change request #${id}`)
  const number = Number(id)
  if (!Number.isInteger(number) || number < 1) return <><PageHeading>No such change request</PageHeading><p><Link href={`/projects/${seg(project)}/change-requests`}>All change requests</Link></p></>
  return <ChangeRequestReview project={project} id={number} onDeleted={() => navigate(`/projects/${seg(project)}/change-requests`)} />
}
