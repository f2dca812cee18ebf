import { Link, useLocation } from 'wouter'
import { seg } from '../../api/client'
import { useProjects } from '../../api/reads'
import { PageHeading, useTitle } from '../../components/page'
import { ChangeRequestList, ChangeRequestSettings } from '../../features/change-requests/change-request-list'
import { useChangeRequest } from '../../features/change-requests/api'
import { ChangeRequestReview } from '../../features/change-requests/change-request-review'
import { isOpen, STATE_LABELS } from '../../features/change-requests/words'
import { Playground } from '../../features/playground/playground'
import { QueryStatus } from '../../components/feedback'

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

/** A change request's preview: the playground for a context, as if the request were applied (nothing is). */
export function ChangeRequestPreviewScreen ({ project, id }: { project: string; id: string }) {
  useTitle(`Preview of change request #${id}`)
  const number = Number(id)
  if (!Number.isInteger(number) || number < 1) return <><PageHeading>No such change request</PageHeading><p><Link href={`/projects/${seg(project)}/change-requests`}>All change requests</Link></p></>
  return <Preview project={project} id={number} />
}

function Preview ({ project, id }: { project: string; id: number }) {
  const request = useChangeRequest(project, id)
  const open = request.data && isOpen(request.data.state)
  return (
    <>
      <p className='crumbs'>
        <Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{project}</Link> / <Link href={`/projects/${seg(project)}/change-requests`}>Change requests</Link> / <Link href={`/projects/${seg(project)}/change-requests/${id}`}>#{id}</Link> / Preview
      </p>
      <PageHeading>Preview of change request #{id}</PageHeading>
      {!request.data && <QueryStatus query={request} what='Loading the change request' />}
      {request.data && !open && <p>Change request #{id} is {STATE_LABELS[request.data.state]}: only an open request is previewed.</p>}
      {request.data && open && <Playground changeRequest={{ id, project, environment: request.data.environment }} />}
    </>
  )
}
