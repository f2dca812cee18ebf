import { useState } from 'react'
import { Link } from 'wouter'
import { seg } from '../../api/client'
import { useFlag, useSegments } from '../../api/reads'
import type { ChangeRequest } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { ErrorAlert, errorsAt, QueryStatus, Time } from '../../components/feedback'
import { submitting, TextArea, TextField } from '../../components/form'
import { JsonDiff } from '../../components/json-diff'
import { PageHeading } from '../../components/page'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { useSession } from '../../lib/session'
import { useChangeRequest, useChangeState, useComment, useDeleteDraft, useDiscardChange, useSetTitle } from './api'
import { beforeAndAfter, describeChange, fromLocalInput, isOpen, localTime, nextSteps, scheduleWords, STATE_LABELS, toLocalInput, viewerZone } from './words'

type Change = ChangeRequest['features'][number]['changes'][number]

/** One change request: its changes as before and after, its reviews and comments, and what may be done next. */
export function ChangeRequestReview ({ project, id, onDeleted }: { project: string; id: number; onDeleted: () => void }) {
  const request = useChangeRequest(project, id)
  return (
    <>
      {!request.data && <><PageHeading>Change request #{id}</PageHeading><QueryStatus query={request} what='Loading the change request' /></>}
      {request.data && <Review request={request.data} onDeleted={onDeleted} />}
    </>
  )
}

function Review ({ request, onDeleted }: { request: ChangeRequest; onDeleted: () => void }) {
  const session = useSession()
  const announce = useAnnounce()
  const { project, id } = request
  const steps = nextSteps(request, { id: session.me.user.id, canChange: session.can('change-flags', project), admin: session.can('admin') })
  const [scheduling, setScheduling] = useState(false)
  const state = useChangeState(project, id, { onSuccess: (r) => announce(`Change request #${id} is ${STATE_LABELS[r.state]}`) })
  const remove = useDeleteDraft(project, id, { onSuccess: () => { announce(`Change request #${id} deleted`); onDeleted() } })
  const conflicts = request.features.flatMap((f) => f.changes.filter((c) => c.conflict).map((c) => ({ where: f.name, what: c.conflict! })))
    .concat(request.segments.filter((s) => s.conflict).map((s) => ({ where: `segment ${s.name}`, what: s.conflict! })))
  const open = isOpen(request.state)
  const actions = (
    <>
      {steps.send && <button type='button' onClick={() => state.mutate({ state: 'In review' })}>Send to review</button>}
      {steps.approve && <button type='button' onClick={() => state.mutate({ state: 'Approved' })}>Approve</button>}
      {steps.apply && <button type='button' onClick={() => state.mutate({ state: 'Applied' })}>Apply{request.state === 'Scheduled' ? ' now' : ''}</button>}
      {steps.schedule && <button type='button' className='secondary' onClick={() => setScheduling(true)}>{request.state === 'Scheduled' ? 'Reschedule' : 'Schedule'}</button>}
      {steps.reject && <button type='button' className='secondary outline' onClick={() => state.mutate({ state: 'Rejected' })}>Reject</button>}
      {steps.cancel && <button type='button' className='secondary outline' onClick={() => state.mutate({ state: 'Cancelled' })}>Cancel request</button>}
      {steps.remove && <button type='button' className='secondary outline' onClick={() => remove.mutate()}>Delete draft</button>}
      {open && <Link href={`/projects/${seg(project)}/change-requests/${id}/preview`} className='secondary'>Preview<span className='visually-hidden'> change request #{id}</span></Link>}
    </>
  )
  return (
    <article aria-labelledby='request-heading'>
      <p className='crumbs'>
        <Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{project}</Link> / <Link href={`/projects/${seg(project)}/change-requests`}>Change requests</Link> / #{id}
      </p>
      <PageHeading actions={actions}>Change request #{id}{request.title ? `: ${request.title}` : ''}</PageHeading>
      <p className='facts'>
        <span className={`badge state-${request.state.replace(' ', '-').toLowerCase()}`}>{STATE_LABELS[request.state]}</span>
        <span>In <strong>{request.environment}</strong>, by {request.createdBy.username ?? 'a deleted user'}, <Time value={request.createdAt} />.</span>
        <span>{request.approvals.length} of {request.minApprovals} {request.minApprovals === 1 ? 'approval' : 'approvals'}{request.approvals.length > 0 ? `: ${request.approvals.map((a) => a.createdBy.username).join(', ')}` : ''}.</span>
      </p>
      {request.schedule && <p className={`alert ${request.schedule.status === 'pending' ? 'info' : 'warning'}`} role={request.schedule.status === 'pending' ? undefined : 'alert'}>{scheduleWords(request.schedule)}</p>}
      {open && conflicts.length > 0 && (
        <div className='alert warning' role='alert'>
          <p><strong>{conflicts.length === 1 ? 'A change conflicts' : `${conflicts.length} changes conflict`} with what is stored now</strong>: it cannot be applied as reviewed. The author edits or discards it, and it is reviewed again.</p>
          <ul>{conflicts.map((c, i) => <li key={i}>{c.where}: {c.what}</li>)}</ul>
        </div>
      )}
      <ErrorAlert error={state.error ?? remove.error} />
      {steps.edit && <TitleForm request={request} />}
      <section aria-labelledby='changes-heading'>
        <h2 id='changes-heading'>Changes</h2>
        {request.features.length + request.segments.length === 0 && <p className='muted'>No changes. Changes made on a flag's page in {request.environment} go here.</p>}
        {request.features.map((f) => <FeatureChanges key={f.name} request={request} feature={f} editable={steps.edit} open={open} />)}
        {request.segments.length > 0 && (
          <section className='card' aria-labelledby='segment-changes'>
            <h3 id='segment-changes'>Segments</h3>
            {request.segments.map((c) => <ChangeItem key={c.id} request={request} change={c} subject={`segment ${c.name}`} editable={steps.edit} open={open} />)}
          </section>
        )}
      </section>
      <Comments request={request} canComment={session.can('change-flags', request.project)} />
      {scheduling && <ScheduleDialog request={request} onClose={() => setScheduling(false)} />}
    </article>
  )
}

function FeatureChanges ({ request, feature, editable, open }: { request: ChangeRequest; feature: ChangeRequest['features'][number]; editable: boolean; open: boolean }) {
  const headingId = `changes-${feature.name}`
  return (
    <section className='card' aria-labelledby={headingId}>
      <h3 id={headingId}>Flag <Link href={`/projects/${seg(request.project)}/features/${seg(feature.name)}`}>{feature.name}</Link></h3>
      {open && feature.conflict && <p className='alert warning'>{feature.conflict}</p>}
      {feature.changes.map((c) => <ChangeItem key={c.id} request={request} change={c} subject={feature.name} flagName={feature.name} editable={editable} open={open} />)}
    </section>
  )
}

/** A change: what it does, its diff (before and after, while the request is open), its conflict, and Discard for its author. */
function ChangeItem ({ request, change, subject, flagName, editable, open }: { request: ChangeRequest; change: Change; subject: string; flagName?: string; editable: boolean; open: boolean }) {
  const flag = useFlag(request.project, flagName ?? '', flagName !== undefined && open)
  const segments = useSegments()
  const announce = useAnnounce()
  const discard = useDiscardChange(request.project, request.id, { onSuccess: () => announce('Change discarded') })
  const sentence = `${describeChange(change)}${flagName ? '' : ` (${subject})`}`
  const { before, after } = open ? beforeAndAfter(change, request.environment, flag.data, segments.data) : { before: undefined, after: change.payload }
  return (
    <div className='change'>
      <p><strong>{sentence}</strong> <small className='muted'>by {change.createdBy.username}, <Time value={change.createdAt} /></small></p>
      {open && change.conflict && <p className='alert warning'>Conflict: {change.conflict}</p>}
      {open ? <JsonDiff before={before} after={after} /> : <p className='muted'>As proposed:</p>}
      {!open && <JsonDiff before={undefined} after={after} />}
      <ErrorAlert error={discard.error} />
      {editable && <button type='button' className='secondary outline small' onClick={() => discard.mutate(change.id)}>Discard<span className='visually-hidden'>: {sentence}</span></button>}
    </div>
  )
}

function TitleForm ({ request }: { request: ChangeRequest }) {
  const announce = useAnnounce()
  const [title, setTitle] = useState(request.title ?? '')
  const save = useSetTitle(request.project, request.id, { onSuccess: () => announce('Title saved') })
  return (
    <form className='row align-end' onSubmit={submitting(() => save.mutate(title))}>
      <TextField label='Title' value={title} onChange={setTitle} hint='What the request is for, for its reviewers' errors={errorsAt(save.error, '/title')} />
      <button type='submit' className='secondary' disabled={title === (request.title ?? '') || save.isPending}>Save title</button>
    </form>
  )
}

function Comments ({ request, canComment }: { request: ChangeRequest; canComment: boolean }) {
  const announce = useAnnounce()
  const [text, setText] = useState('')
  const comment = useComment(request.project, request.id, { onSuccess: () => { setText(''); announce('Comment added') } })
  return (
    <section aria-labelledby='comments-heading'>
      <h2 id='comments-heading'>Comments</h2>
      {request.comments.length === 0 && <p className='muted'>No comments yet.</p>}
      <ul className='comments'>
        {request.comments.map((c) => (
          <li key={c.id}><strong>{c.createdBy.username ?? 'a deleted user'}</strong> <small className='muted'><Time value={c.createdAt} /></small><p>{c.text}</p></li>
        ))}
      </ul>
      {canComment && (
        <form onSubmit={submitting(() => comment.mutate(text))}>
          <TextArea label='Comment' value={text} onChange={setText} errors={errorsAt(comment.error, '/text')} />
          <ErrorAlert error={comment.error} shownAt={['/text']} />
          <button type='submit' disabled={text.trim() === '' || comment.isPending} aria-busy={comment.isPending || undefined}>Add comment</button>
        </form>
      )}
    </section>
  )
}

/** The time to apply a request, in the viewer's time zone (sent in UTC). */
function ScheduleDialog ({ request, onClose }: { request: ChangeRequest; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const [at, setAt] = useState(toLocalInput(request.schedule ? new Date(request.schedule.scheduledAt) : new Date(Date.now() + 3_600_000)))
  const schedule = useChangeState(request.project, request.id, done((r) => `Change request #${request.id} scheduled for ${r.schedule ? localTime(r.schedule.scheduledAt) : 'later'}`))
  const instant = fromLocalInput(at)
  return (
    <FormDialog
      title={`Schedule change request #${request.id}`}
      onClose={onClose}
      onSubmit={() => instant && schedule.mutate({ state: 'Scheduled', scheduledAt: instant })}
      write={schedule}
      shownAt={['/scheduledAt']}
      submitLabel='Schedule'
      disabled={instant === undefined}
    >
      <TextField
        label='Apply at'
        type='datetime-local'
        value={at}
        onChange={setAt}
        hint={`In your time zone, ${viewerZone()}.${instant ? ` That is ${new Date(instant).toISOString().replace('.000Z', 'Z')} in UTC.` : ''}`}
        errors={errorsAt(schedule.error, '/scheduledAt')}
      />
    </FormDialog>
  )
}
