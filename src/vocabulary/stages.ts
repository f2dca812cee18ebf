/** A feature's lifecycle stages, in the order a feature enters them. */
export const STAGES = ['initial', 'pre-live', 'live', 'completed', 'archived'] as const
export type StageName = (typeof STAGES)[number]

/** What became of a completed feature. */
export const COMPLETION_STATUSES = ['kept', 'discarded'] as const
export type CompletionStatus = (typeof COMPLETION_STATUSES)[number]
