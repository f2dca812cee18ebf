// The words the screens use for the server's vocabulary. Each table names every value of its
// list (the type checker says so), so a value the server gains cannot go unnamed here.
import type { RootRoleName } from '../../src/vocabulary/roles'
import { FEATURE_TYPES, type FeatureTypeId } from '../../src/vocabulary/flag-types'
import { STAGES, type StageName } from '../../src/vocabulary/stages'
import type { Environment, Project, StrategyDefinition } from '../api/types'

export interface Option { value: string; label: string }

const FLAG_TYPE_LABELS: Record<FeatureTypeId, string> = {
  release: 'Release',
  experiment: 'Experiment',
  operational: 'Operational',
  'kill-switch': 'Kill switch',
  permission: 'Permission',
  sunset: 'Sunset',
}

/** The flag types, in the server's order. */
export const FLAG_TYPE_OPTIONS: Option[] = FEATURE_TYPES.map((value) => ({ value, label: FLAG_TYPE_LABELS[value] }))

/** A flag type's name; a type this list does not know is shown as it is. */
export const flagTypeLabel = (type: string) => FLAG_TYPE_LABELS[type as FeatureTypeId] ?? type

export const STAGE_LABELS: Record<StageName, string> = {
  initial: 'Initial',
  'pre-live': 'Pre-live',
  live: 'Live',
  completed: 'Completed',
  archived: 'Archived',
}

/** The stages a flag list shows (an archived flag is in no list), in lifecycle order. */
export const LISTED_STAGE_OPTIONS: Option[] = STAGES.filter((s) => s !== 'archived').map((value) => ({ value, label: STAGE_LABELS[value] }))

/** The names people know the built-in strategies by. */
const BUILT_IN_STRATEGIES: Record<string, string> = {
  flexibleRollout: 'Gradual rollout',
  default: 'Standard (on for everyone)',
  userWithId: 'User IDs',
}

export const strategyLabel = (name: string, definitions?: StrategyDefinition[]) =>
  BUILT_IN_STRATEGIES[name] ?? definitions?.find((d) => d.name === name)?.displayName ?? definitions?.find((d) => d.name === name)?.title ?? name

/** What a root role may do, as the role picker says it. */
export const ROLE_MEANINGS: Record<RootRoleName, string> = {
  Viewer: 'reads everything, changes nothing',
  Editor: 'changes flags, strategies, segments and context fields',
  Admin: 'everything, including people, tokens and webhooks',
}

/** A person as lists name them: their name, else username, else email. */
export const personName = (p: { id: number; name?: string | null; username?: string | null; email?: string | null }) =>
  p.name || p.username || p.email || `user ${p.id}`

/** A person as pickers name them: their name, and their email or username when it differs. */
export function personWithContact (p: { id: number; name?: string | null; username?: string | null; email?: string | null }) {
  const name = personName(p)
  const contact = p.email ?? p.username
  return contact && contact !== name ? `${name} (${contact})` : name
}

/** A group's or a list's members, counted in words: "1 member", "3 members". */
export const memberCount = (count: number) => (count === 1 ? '1 member' : `${count} members`)

/** A tag as it is written and shown: type:value. */
export const tagLabel = (t: { type: string; value: string }) => `${t.type}:${t.value}`

/** A percentage from per mille, as the screens show weights: 333 → "33.3%". */
export const percent = (perMille: number) => `${(perMille / 10).toFixed(1)}%`

/** The projects as a picker offers them (their names, by id). */
export const projectOptions = (projects: Project[] = []): Option[] => projects.map((p) => ({ value: p.id, label: p.name }))

export const environmentOptions = (environments: Environment[] = []): Option[] => environments.map((e) => ({ value: e.name, label: e.name }))
