// Change requests in words: what a change does, what a person may do next with a request, its
// schedule in the viewer's time zone (stored in UTC), and each change as before and after.
import { EDITABLE_STATES, OPEN_STATES } from '../../../src/vocabulary/change-requests'
import type { ChangeAction, ChangeRequest, ChangeRequestState, FeatureDetails, Segment } from '../../api/types'

type Change = ChangeRequest['features'][number]['changes'][number]
type Payload = Record<string, unknown> | undefined

const payloadOf = (change: Pick<Change, 'payload'>) => (typeof change.payload === 'object' && change.payload !== null && !Array.isArray(change.payload) ? change.payload as Record<string, unknown> : undefined)

/** What a change does, as a sentence without its subject ("Switch on", "Remove a strategy"). */
const SAYS: Record<ChangeAction, (payload: Payload, change: Pick<Change, 'payload'>) => string> = {
  updateEnabled: (p) => `Switch ${p?.enabled === true ? 'on' : 'off'}`,
  addStrategy: (p) => `Add a ${String(p?.name ?? '')} strategy`,
  updateStrategy: (p) => `Change strategy ${String(p?.id ?? '')}`,
  deleteStrategy: (p) => `Remove strategy ${String(p?.id ?? '')}`,
  reorderStrategy: (_p, change) => `Reorder ${Array.isArray(change.payload) ? change.payload.length : 0} strategies`,
  patchVariant: (p) => `Set ${Array.isArray(p?.variants) ? p.variants.length : 0} variants`,
  archiveFeature: () => 'Archive the flag',
  addDependency: (p) => `Depend on ${String(p?.feature ?? '')}`,
  deleteDependency: (p) => (p?.feature === undefined ? 'Remove every dependency' : `Remove the dependency on ${String(p.feature)}`),
  updateSegment: (p) => `Change the segment${p?.name ? ` (named ${String(p.name)})` : ''}`,
  deleteSegment: () => 'Delete the segment',
}

export const describeChange = (change: Pick<Change, 'action' | 'payload'>) => SAYS[change.action](payloadOf(change), change)

export const STATE_LABELS: Record<ChangeRequestState, string> = {
  Draft: 'Draft',
  'In review': 'In review',
  Approved: 'Approved',
  Scheduled: 'Scheduled',
  Applied: 'Applied',
  Cancelled: 'Cancelled',
  Rejected: 'Rejected',
}

/** Whether the request is still open (Draft, In review, Approved, Scheduled): it may be cancelled, and previewed. */
export const isOpen = (state: ChangeRequestState) => (OPEN_STATES as readonly ChangeRequestState[]).includes(state)
const isEditable = (state: ChangeRequestState) => (EDITABLE_STATES as readonly ChangeRequestState[]).includes(state)

/** What the person (`me`, whether they may change flags and are an Admin) may do with the request now. */
export function nextSteps (request: Pick<ChangeRequest, 'state' | 'createdBy' | 'approvals' | 'features' | 'segments'>, me: { id: number; canChange: boolean; admin: boolean }) {
  const author = request.createdBy.id === me.id
  const changes = request.features.reduce((n, f) => n + f.changes.length, 0) + request.segments.length
  const approved = request.approvals.some((a) => a.createdBy.id === me.id)
  const { state } = request
  const may = me.canChange
  return {
    edit: may && author && isEditable(state),
    send: may && author && state === 'Draft' && changes > 0,
    approve: may && !author && !approved && state === 'In review' && changes > 0,
    reject: may && !author && ['In review', 'Approved', 'Scheduled'].includes(state),
    apply: may && (state === 'Approved' || state === 'Scheduled'),
    schedule: may && (state === 'Approved' || state === 'Scheduled'),
    cancel: (author || me.admin) && may && isOpen(state),
    remove: may && author && state === 'Draft',
  }
}

const pad = (n: number) => String(n).padStart(2, '0')

/** A `datetime-local` value (the viewer's own time zone) for an instant. */
export function toLocalInput (date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** The instant a `datetime-local` value names in the viewer's time zone, in UTC (RFC 3339); undefined when it names none. */
export function fromLocalInput (value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value)
  if (!match) return undefined
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number]
  const date = new Date(y, mo - 1, d, h, mi)
  if (date.getMonth() !== mo - 1 || date.getDate() !== d) return undefined
  return date.toISOString()
}

/** The viewer's time zone, as the schedule form names it. */
export const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone

/** A time as the viewer reads it, with their zone. */
export const localTime = (iso: string) => `${new Date(iso).toLocaleString()} (${viewerZone()})`

/** The schedule of a request, in words. */
export function scheduleWords (schedule: NonNullable<ChangeRequest['schedule']>): string {
  const at = localTime(schedule.scheduledAt)
  if (schedule.status === 'pending') return `Scheduled to apply at ${at}.`
  if (schedule.status === 'failed') return `The scheduled apply at ${at} failed, and nothing was applied: ${schedule.reason ?? 'no reason given'}. Reschedule it once that is resolved, apply it now, or reject it.`
  return `The schedule for ${at} is suspended, and nothing was applied: ${schedule.reason ?? 'no reason given'}. Reschedule it, apply it now, or reject it.`
}

const strategyDocument = (s: FeatureDetails['environments'][number]['strategies'][number]) => {
  const { id: _id, ...rest } = s
  return rest
}

/**
 * A change as before and after, for a diff: what the flag (or segment) holds now in the
 * request's environment, and what it would hold once the change is applied. Undefined when the
 * request is closed (what is stored now says nothing about it then): the change shows as sent.
 */
export function beforeAndAfter (change: Pick<Change, 'action' | 'payload'>, environment: string, flag: FeatureDetails | undefined, segments: Segment[] | undefined): { before: unknown; after: unknown } {
  const p = payloadOf(change) ?? {}
  const env = flag?.environments.find((e) => e.name === environment)
  const strategy = env?.strategies.find((s) => s.id === p.id)
  const segment = segments?.find((s) => s.id === p.id)
  switch (change.action) {
    case 'updateEnabled': return { before: { enabled: env?.enabled }, after: { enabled: p.enabled } }
    case 'addStrategy': return { before: undefined, after: p }
    case 'updateStrategy': {
      const { id: _id, ...body } = p
      return { before: strategy && strategyDocument(strategy), after: { ...(strategy && strategyDocument(strategy)), ...body } }
    }
    case 'deleteStrategy': return { before: strategy && strategyDocument(strategy), after: undefined }
    case 'reorderStrategy': {
      const order = Array.isArray(change.payload) ? change.payload as { id: string; sortOrder: number }[] : []
      return {
        before: (env?.strategies ?? []).map((s) => ({ id: s.id, sortOrder: s.sortOrder })),
        after: (env?.strategies ?? []).map((s) => ({ id: s.id, sortOrder: order.find((o) => o.id === s.id)?.sortOrder ?? s.sortOrder })),
      }
    }
    case 'patchVariant': return { before: env?.variants, after: p.variants }
    case 'archiveFeature': return { before: { archived: flag?.lifecycle.stage === 'archived' }, after: { archived: true } }
    case 'addDependency': return { before: flag?.dependencies, after: [...(flag?.dependencies ?? []).filter((d) => d.feature !== p.feature), p] }
    case 'deleteDependency': return { before: flag?.dependencies, after: p.feature === undefined ? [] : (flag?.dependencies ?? []).filter((d) => d.feature !== p.feature) }
    case 'updateSegment': {
      const { id: _id, ...body } = p
      return { before: segment && { name: segment.name, description: segment.description, project: segment.project, constraints: segment.constraints }, after: body }
    }
    case 'deleteSegment': return { before: segment && { name: segment.name, constraints: segment.constraints }, after: undefined }
  }
}
