// An event as a sentence: who did what to which flag, where.
import type { StoredEvent } from '../../api/types'

type Data = Record<string, unknown> | undefined

const strategyName = (data: Data) => {
  const name = data?.name
  if (name === 'flexibleRollout') return `a gradual rollout${data?.parameters && typeof data.parameters === 'object' && 'rollout' in data.parameters ? ` of ${String((data.parameters as Record<string, unknown>).rollout)}%` : ''}`
  if (name === 'default') return 'the standard strategy'
  if (name === 'userWithId') return 'a user IDs strategy'
  return typeof name === 'string' ? `the ${name} strategy` : 'a strategy'
}

/** A change made by applying a change request says so: its number and its author. */
const through = (event: StoredEvent) => (event.changeRequest ? ` (change request #${event.changeRequest.id} by ${event.changeRequest.createdBy})` : '')

/** `withFlag`: name the flag (in a list of every flag's events); otherwise "the flag". */
export function describeEvent (event: StoredEvent, withFlag: boolean): string {
  const sentence = describeOnly(event, withFlag)
  const suffix = through(event)
  return suffix === '' ? sentence : `${sentence.replace(/\.$/, '')}${suffix}.`
}

/** A change request's number, from its event. */
const requestOf = (data: Data) => `change request #${String(data?.changeRequestId ?? '?')}`

function describeOnly (event: StoredEvent, withFlag: boolean): string {
  const who = event.createdBy
  const flag = withFlag && event.featureName ? ` ${event.featureName}` : ' the flag'
  const where = event.environment ? ` in ${event.environment}` : ''
  const data = (event.data ?? undefined) as Data
  const pre = (event.preData ?? undefined) as Data
  switch (event.type) {
    case 'feature-created': return `${who} created${withFlag ? ` flag ${event.featureName}` : ' the flag'}${data?.type ? ` as a ${String(data.type)} flag` : ''}.`
    case 'feature-environment-enabled': return `${who} switched${flag} on${where}.`
    case 'feature-environment-disabled': return `${who} switched${flag} off${where}.`
    case 'feature-environment-variants-updated': return `${who} changed the variants of${flag}${where}.`
    case 'feature-strategy-add': return `${who} added ${strategyName(data)} to${flag}${where}.`
    case 'feature-strategy-update': return `${who} changed ${strategyName(data)} of${flag}${where}.`
    case 'feature-strategy-remove': return `${who} removed ${strategyName(pre)} from${flag}${where}.`
    case 'strategy-order-changed': return `${who} reordered the strategies of${flag}${where}.`
    case 'feature-completed': return `${who} marked${flag} completed: ${data?.status === 'kept' ? 'kept' : 'discarded'}${data?.statusValue ? ` (${String(data.statusValue)})` : ''}.`
    case 'feature-uncompleted': return `${who} marked${flag} as not completed.`
    case 'feature-lifecycle-stage-entered': return `${flag.trim().replace(/^the/, 'The')} entered the ${String(data?.stage ?? 'next')} stage${where}.`
    case 'feature-archived': return `${who} archived${flag}.`
    case 'feature-revived': return `${who} revived${flag}.`
    case 'feature-metadata-updated': return `${who} changed the settings of${flag}.`
    case 'feature-dependency-added': return `${who} made${flag} depend on ${String(data?.feature ?? 'another flag')}.`
    case 'feature-dependency-removed': return `${who} removed the dependency of${flag} on ${String(data?.feature ?? 'another flag')}.`
    case 'feature-dependencies-removed': return `${who} removed all dependencies of${flag}.`
    case 'feature-tagged': return `${who} tagged${flag} ${String(data?.type ?? '')}:${String(data?.value ?? '')}.`
    case 'feature-untagged': return `${who} removed the tag ${String(pre?.type ?? '')}:${String(pre?.value ?? '')} from${flag}.`
    case 'project-created': return `${who} created project ${event.project}.`
    case 'environment-created': return `${who} created environment ${event.environment ?? String(data?.name ?? '')}.`
    case 'project-environment-added': return `${who} enabled environment ${event.environment} in project ${event.project}.`
    case 'segment-created': return `${who} created segment ${String(data?.name ?? '')}.`
    case 'segment-updated': return `${who} changed segment ${String(data?.name ?? '')}.`
    case 'segment-deleted': return `${who} deleted segment ${String(pre?.name ?? '')}.`
    case 'api-token-created': return `${who} created API token ${String(data?.tokenName ?? '')}.`
    case 'api-token-deleted': return `${who} deleted API token ${String(pre?.tokenName ?? data?.tokenName ?? '')}.`
    case 'change-added': return `${who} proposed a change to${flag}${where} in ${requestOf(data)}.`
    case 'change-edited': return `${who} edited a proposed change to${flag}${where} in ${requestOf(data)}.`
    case 'change-discarded': return `${who} discarded a proposed change to${flag}${where} from ${requestOf(data)}.`
    case 'change-request-created': return `${who} started ${requestOf(data)}${where}.`
    case 'change-request-sent-to-review': return `${who} sent ${requestOf(data)} to review.`
    case 'change-request-approval-added': return `${who} approved ${requestOf(data)}; more approvals are needed.`
    case 'change-request-approved': return `${who} approved ${requestOf(data)}.`
    case 'change-request-rejected': return `${who} rejected ${requestOf(data)}.`
    case 'change-request-cancelled': return `${who} cancelled ${requestOf(data)}.`
    case 'change-request-applied': return `${who} applied ${requestOf(data)}${where}.`
    case 'change-request-scheduled': return `${who} scheduled ${requestOf(data)} for ${String(data?.scheduledAt ?? 'later')}.`
    case 'change-request-schedule-suspended': return `The schedule of ${requestOf(data)} was suspended: ${String(data?.reason ?? '')}.`
    case 'change-request-scheduled-application-failure': return `The scheduled apply of ${requestOf(data)} failed: ${String(data?.reason ?? '')}.`
    case 'change-request-configuration-updated': return `${who} turned change requests ${data?.changeRequestsEnabled === true ? `on (${String(data.requiredApprovals ?? 1)} approvals)` : 'off'}${where} in project ${event.project}.`
    default: return `${who}: ${event.type.replaceAll('-', ' ')}${event.featureName ? ` (${event.featureName})` : ''}${where}.`
  }
}
