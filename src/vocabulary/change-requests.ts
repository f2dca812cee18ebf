/** The states of a change request, as Unleash names them. */
export const CHANGE_REQUEST_STATES = ['Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Cancelled', 'Rejected'] as const
export type ChangeRequestState = (typeof CHANGE_REQUEST_STATES)[number]

/** The states a request can leave: it is still open (its author's changes go into it unless Scheduled). */
export const OPEN_STATES = ['Draft', 'In review', 'Approved', 'Scheduled'] as const satisfies readonly ChangeRequestState[]
/** The states whose request takes its author's next change (one such request per author and environment). */
export const EDITABLE_STATES = ['Draft', 'In review', 'Approved'] as const satisfies readonly ChangeRequestState[]

/** What a change does, as Unleash names its actions: to one feature in the request's environment, or to a segment of the project. */
export const FEATURE_ACTIONS = [
  'updateEnabled',
  'addStrategy',
  'updateStrategy',
  'deleteStrategy',
  'reorderStrategy',
  'patchVariant',
  'archiveFeature',
  'addDependency',
  'deleteDependency',
] as const
export const SEGMENT_ACTIONS = ['updateSegment', 'deleteSegment'] as const
export const CHANGE_ACTIONS = [...FEATURE_ACTIONS, ...SEGMENT_ACTIONS] as const
export type FeatureAction = (typeof FEATURE_ACTIONS)[number]
export type SegmentAction = (typeof SEGMENT_ACTIONS)[number]
export type ChangeAction = (typeof CHANGE_ACTIONS)[number]

/** Changes that act on the feature in every environment (and segments, which every environment uses). */
export const PROJECT_WIDE_ACTIONS = ['archiveFeature', 'addDependency', 'deleteDependency', 'updateSegment', 'deleteSegment'] as const satisfies readonly ChangeAction[]

/** How many approvals an environment may require, and the default. */
export const MIN_REQUIRED_APPROVALS = 1
export const MAX_REQUIRED_APPROVALS = 10

/** The most changes one change request holds (a body adding more, or a request growing past it, is a 400). */
export const MAX_CHANGES_PER_REQUEST = 1000

/** What a schedule is: still to come, or could not apply (why in its reason). */
export const SCHEDULE_STATUSES = ['pending', 'failed', 'suspended'] as const
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number]
