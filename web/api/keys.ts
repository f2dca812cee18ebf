// Every cache key of the screens' reads, in one place: a write names the keys of what it
// changed (useWrite), whichever feature reads them.
import type { FlagRef } from './types'

export const keys = {
  me: ['me'] as const,
  projects: ['projects'] as const,
  environments: ['environments'] as const,
  /** A project's flag list; each search of it (the list screen's pages) sits under it. */
  flags: (project: string) => ['features', project] as const,
  flagSearch: (project: string, query: string) => ['features', project, 'search', query] as const,
  /** A flag's usage over the last `hours` hours. */
  usage: (name: string, hours: number) => ['usage', name, hours] as const,
  featureTypes: ['feature-types'] as const,
  /** A flag as its page reads it. */
  flag: ({ project, name }: FlagRef) => ['feature', project, name] as const,
  /** Every flag of a project, as their pages read them. */
  projectFlags: (project: string) => ['feature', project] as const,
  lifecycle: ({ project, name }: FlagRef) => ['lifecycle', project, name] as const,
  variants: ({ project, name }: FlagRef, environment: string) => ['variants', project, name, environment] as const,
  /** A flag's tags; ['tags'] covers every flag's. */
  tags: (name?: string) => (name === undefined ? ['tags'] as const : ['tags', name] as const),
  tagTypes: ['tag-types'] as const,
  definitions: ['strategy-definitions'] as const,
  segments: ['segments'] as const,
  segmentUsage: (id: number) => ['segment-usage', id] as const,
  context: ['context'] as const,
  /** The history; each filtered list is ['events', filter]. */
  events: ['events'] as const,
  users: ['users'] as const,
  apiTokens: ['api-tokens'] as const,
  personalAccessTokens: ['personal-access-tokens'] as const,
  webhooks: ['webhooks'] as const,
  oidcSettings: ['oidc-settings'] as const,
  passwordAuth: ['password-auth'] as const,
  groups: ['groups'] as const,
  /** Who has a role in a project (people and groups), and the project roles there are. */
  projectAccess: (project: string) => ['project-access', project] as const,
  deliveries: (webhook: string) => ['deliveries', webhook] as const,
  /** A project's change requests: its settings, its list, one request, the caller's own; ['change-requests', project] covers them all. */
  changeRequests: (project: string) => ['change-requests', project] as const,
  changeRequestConfig: (project: string) => ['change-requests', project, 'config'] as const,
  changeRequestList: (project: string) => ['change-requests', project, 'list'] as const,
  changeRequest: (project: string, id: number) => ['change-requests', project, 'one', id] as const,
  myChangeRequests: (project: string) => ['change-requests', project, 'mine'] as const,
}
