/**
 * Change requests in Unleash Enterprise's shapes (its 7.4.1 Admin OpenAPI): the bodies this
 * server takes (closed, every string bounded) and the answers it gives, which also validate
 * against Unleash's changeRequest* schemas.
 */
import { type Static, Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, UrlFriendly } from '../http/schemas.js'
import {
  CHANGE_ACTIONS,
  CHANGE_REQUEST_STATES,
  type ChangeAction,
  type ChangeRequestState,
  MAX_CHANGES_PER_REQUEST,
  MAX_REQUIRED_APPROVALS,
  type ScheduleStatus,
} from '../vocabulary/change-requests.js'

export const CHANGE_REQUESTS_TAG = 'Change Requests'

// Bodies

export const ConfigBody = Type.Object(
  {
    changeRequestsEnabled: Type.Boolean({ description: 'true: people change this environment of the project through change requests only' }),
    requiredApprovals: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: `Approvals needed by people other than the author: taken into 1–${MAX_REQUIRED_APPROVALS} (0 is 1, more than ${MAX_REQUIRED_APPROVALS} is ${MAX_REQUIRED_APPROVALS}), as Unleash; absent: 1`,
      })
    ),
  },
  { additionalProperties: false }
)

/** One change as a body names it; its payload is checked by the schema of the write it stands for. */
export const NewChange = Type.Object(
  {
    feature: Type.Optional(UrlFriendly('The feature the change applies to (every action but updateSegment and deleteSegment)')),
    action: StringEnum(CHANGE_ACTIONS, { description: 'What the change does' }),
    payload: Type.Optional(
      Type.Unknown({
        description:
          'What the write it stands for takes, checked by the same schema and rules: updateEnabled {enabled, shouldActivateDisabledStrategies?}; addStrategy the body of POST …/strategies; updateStrategy that of PUT …/strategies/{id} with the id; deleteStrategy {id}; reorderStrategy that of POST …/strategies/set-sort-order; patchVariant {variants} (the variants after the patch: what PUT …/variants takes); archiveFeature none; addDependency the body of POST …/dependencies; deleteDependency {feature} (one parent) or none (all); updateSegment the body of PUT /api/admin/segments/{id} with the id; deleteSegment {id}',
      })
    ),
  },
  { additionalProperties: false }
)
export type NewChange = Static<typeof NewChange>

/** One change, or a list of them (1 to MAX_CHANGES_PER_REQUEST), as Unleash's changeRequestOneOrManyCreateSchema. */
export const AddChangesBody = Type.Unsafe<NewChange | NewChange[]>({
  if: { type: 'array' },
  then: Type.Array(NewChange, { minItems: 1, maxItems: MAX_CHANGES_PER_REQUEST }),
  else: NewChange,
  description: `One change, or a list of 1 to ${MAX_CHANGES_PER_REQUEST} changes`,
})

const Comment = Type.String({ minLength: 1, maxLength: 10_000, description: 'Kept as a comment of the request' })

export const StateBody = Type.Unsafe<{ state: ChangeRequestState; scheduledAt?: string; comment?: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['state'],
  properties: {
    state: { type: 'string', enum: [...CHANGE_REQUEST_STATES], description: 'The state wanted' },
    scheduledAt: { type: 'string', format: 'date-time', description: 'With Scheduled (and only then): when to apply it, in the future' },
    comment: Comment,
  },
  if: { required: ['state'], properties: { state: { const: 'Scheduled' } } },
  // `then` is JSON Schema's keyword here, not a thenable.
  then: { required: ['scheduledAt'] },
  else: { properties: { scheduledAt: { not: {}, description: 'is only sent with the state Scheduled' } } },
})

export const TitleBody = Type.Object({ title: Type.String({ maxLength: 500, pattern: '^[^\\u0000]*$', description: 'Empty: no title' }) }, { additionalProperties: false })
export const CommentBody = Type.Object({ text: Comment }, { additionalProperties: false })
export const ReviewersBody = Type.Object(
  {
    reviewers: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
      maxItems: 10,
      uniqueItems: true,
      description: 'User ids asked to review (at most 10); they replace those asked before',
    }),
  },
  { additionalProperties: false }
)

const IdList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })
export const ScheduledQuery = Type.Object({
  feature: Type.Optional(IdList),
  strategyId: Type.Optional(IdList),
  variantForFlag: Type.Optional(IdList),
})

// Path parameters

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Change request id' })
export const ProjectEnvironmentParams = Type.Object({ projectId: UrlFriendly('Project id'), environment: UrlFriendly('Environment name') })
export const RequestParams = Type.Object({ projectId: UrlFriendly('Project id'), id: Id })
/** A request named by its id alone (the playground's preview of it). */
export const RequestIdParams = Type.Object({ id: Id })
export const ChangeParams = Type.Object({
  projectId: UrlFriendly('Project id'),
  changeRequestId: Id,
  changeId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Change id' }),
})
export const FeaturePendingParams = Type.Object({ projectId: UrlFriendly('Project id'), featureName: UrlFriendly('Feature name') })

// Answers

export const EnvironmentConfig = Type.Object({
  environment: Type.String(),
  type: Type.String(),
  changeRequestEnabled: Type.Boolean(),
  requiredApprovals: Nullable(Type.Integer()),
})

const Person = Type.Object({
  id: Type.Optional(Type.Integer({ description: "Absent once the person's account is deleted" })),
  username: Nullable(Type.String({ description: 'The name events record for them (email, else username)' })),
})

export const ChangeView = Type.Object({
  id: Type.Integer(),
  action: StringEnum(CHANGE_ACTIONS),
  payload: Type.Optional(Type.Unknown({ description: 'As added (absent for archiveFeature, and deleteDependency of all parents)' })),
  conflict: Type.Optional(Type.String({ description: 'Why it cannot be applied as reviewed; absent when nothing moved' })),
  createdBy: Person,
  createdAt: Timestamp,
})

export const FeatureChanges = Type.Object({
  name: Type.String(),
  conflict: Type.Optional(Type.String({ description: 'The feature archived or deleted since' })),
  changes: Type.Array(ChangeView),
})

export const SegmentChangeView = Type.Object({
  id: Type.Integer(),
  action: StringEnum(CHANGE_ACTIONS),
  payload: Type.Unknown({ description: 'As added' }),
  name: Type.String({ description: "The segment's current name (the name it was given in the change, if the segment is gone)" }),
  conflict: Type.Optional(Type.String({ description: 'Why it cannot be applied as reviewed; absent when nothing moved' })),
  createdBy: Person,
  createdAt: Timestamp,
})

const Review = Type.Object({ createdBy: Person, createdAt: Timestamp })
const CommentView = Type.Object({ id: Type.Integer(), text: Type.String(), createdBy: Person, createdAt: Timestamp })

export const Schedule = Type.Object({
  scheduledAt: Timestamp,
  status: StringEnum(['pending', 'failed', 'suspended'] as const),
  reason: Type.Optional(Type.String({ description: 'Why it failed or was suspended' })),
  failureReason: Type.Optional(Nullable(Type.String({ description: 'As reason, for a failed one (deprecated in Unleash)' }))),
})

const requestMembers = {
  id: Type.Integer(),
  title: Type.Optional(Type.String()),
  environment: Type.String(),
  minApprovals: Type.Integer(),
  project: Type.String(),
  features: Type.Array(FeatureChanges),
  segments: Type.Array(SegmentChangeView),
  approvals: Type.Array(Review),
  rejections: Type.Array(Review),
  comments: Type.Array(CommentView),
  createdBy: Person,
  createdAt: Timestamp,
  state: StringEnum(CHANGE_REQUEST_STATES),
  schedule: Type.Optional(Schedule),
}

export const ChangeRequestView = Type.Object(
  { ...requestMembers, stateTimestamps: Type.Record(Type.String(), Type.String({ format: 'date-time' })) },
  { description: 'A change request; schedule only while Scheduled' }
)
export const ChangeRequestListItem = Type.Object(requestMembers, {
  description: 'A change request in a list: without stateTimestamps; in the project list, its features without their changes',
})
export type ChangeRequestView = Static<typeof ChangeRequestView>
export type ChangeRequestListItem = Static<typeof ChangeRequestListItem>

export const ChangeRequestCounts = Type.Object({
  total: Type.Integer(),
  applied: Type.Integer(),
  rejected: Type.Integer(),
  reviewRequired: Type.Integer(),
  approved: Type.Integer(),
  scheduled: Type.Integer(),
})

export const Reviewer = Type.Object({
  id: Type.Integer(),
  email: Type.String({ description: 'Empty when the user has none' }),
  username: Nullable(Type.String()),
  name: Nullable(Type.String()),
})
export const Reviewers = Type.Object({ reviewers: Type.Array(Reviewer) })

export const ScheduledItem = Type.Object({ id: Type.Integer(), environment: Type.String(), title: Type.Optional(Type.String()) })

// What the service works with

/** A stored change request. */
export interface StoredRequest {
  id: number
  project: string
  environment: string
  state: ChangeRequestState
  title: string | null
  minApprovals: number
  authorId: number | null
  authorName: string
  createdAt: Date
  stateTimestamps: Record<string, string>
  schedule: { scheduledAt: Date; status: ScheduleStatus; reason: string | null; byId: number | null; byName: string | null } | null
}

/** A stored change. */
export interface StoredChange {
  id: number
  requestId: number
  feature: string | null
  segmentId: number | null
  action: ChangeAction
  /** undefined for an action without a payload. */
  payload: unknown
  /** JSON text of the target when added (see Target in change-rules.ts). */
  target: string
  authorId: number | null
  authorName: string
  createdAt: Date
}
