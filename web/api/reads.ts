// The reads several features show (projects, environments, flags, strategy definitions,
// segments, context fields, users, groups); a feature's own reads live in its api.ts.
import { type QueryClient, useQuery } from '@tanstack/react-query'
import { get, seg } from './client'
import { keys } from './keys'
import type { ContextField, Environment, FeatureDetails, FeatureSummary, FeatureType, Group, Project, Segment, StrategyDefinition, Tag, User } from './types'

export const useProjects = () =>
  useQuery({ queryKey: keys.projects, queryFn: async () => (await get<{ projects: Project[] }>('/api/admin/projects')).projects })

export const useEnvironments = () =>
  useQuery({ queryKey: keys.environments, queryFn: async () => (await get<{ environments: Environment[] }>('/api/admin/environments')).environments })

const flagsQuery = (project: string) => ({
  queryKey: keys.flags(project),
  queryFn: async () =>
    (await get<{ features: Omit<FeatureSummary, 'project'>[] }>(`/api/admin/projects/${seg(project)}/features?include=lifecycle`)).features.map((f): FeatureSummary => ({ ...f, project })),
})

const flagQuery = (project: string, name: string) => ({
  queryKey: keys.flag({ project, name }),
  queryFn: () => get<FeatureDetails>(`/api/admin/projects/${seg(project)}/features/${seg(name)}`),
})

export const useFlags = (project: string) => useQuery(flagsQuery(project))

/** The flag types with their expected lifetimes (what makes a flag potentially stale). */
export const useFeatureTypes = () =>
  useQuery({ queryKey: keys.featureTypes, queryFn: async () => (await get<{ types: FeatureType[] }>('/api/admin/feature-types')).types, staleTime: 60_000 })

/** Every tag that exists, by type and value. */
export const useAllTags = () =>
  useQuery({ queryKey: keys.tags(), queryFn: async () => (await get<{ tags: Tag[] }>('/api/admin/tags')).tags, staleTime: 10_000 })

/** A flag as its page reads it (read only when `enabled`). */
export const useFlag = (project: string, name: string, enabled = true) => useQuery({ ...flagQuery(project, name), enabled })

/**
 * Starts reading what the first screen shows while the script asks who is signed in: a flag
 * opened by its address appears one round trip sooner. A 401 here is ignored
 * (the sign-in form shows, and the screen reads again after sign-in).
 */
export function prefetchFor (client: QueryClient, path: string) {
  let parts: string[]
  try {
    parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p))
  } catch {
    return // a malformed address: the screen says so
  }
  if (parts[0] !== 'projects' || !parts[1]) return
  // A flag list reads through feature search: its first page is started by the flags feature (main.tsx).
  if (parts[2] === 'features' && parts[3]) client.prefetchQuery(flagQuery(parts[1], parts[3]))
}

export const useDefinitions = () =>
  useQuery({
    queryKey: keys.definitions,
    queryFn: async () => (await get<{ strategies: StrategyDefinition[] }>('/api/admin/strategies')).strategies,
    staleTime: 60_000,
  })

export const useSegments = () =>
  useQuery({ queryKey: keys.segments, queryFn: async () => (await get<{ segments: Segment[] }>('/api/admin/segments')).segments })

/** Context fields; an editor's suggestions may be a minute old (`staleTime`), the list's not. */
export const useContextFields = (staleTime?: number) =>
  useQuery({ queryKey: keys.context, queryFn: () => get<ContextField[]>('/api/admin/context'), ...(staleTime === undefined ? {} : { staleTime }) })

/** Stickiness fields the SDKs know, then the context fields that may be used for stickiness. */
const STICKINESS = ['default', 'userId', 'sessionId', 'random']

export function useStickinessOptions () {
  const context = useContextFields(60_000)
  return [...new Set([...STICKINESS, ...(context.data ?? []).filter((c) => c.stickiness).map((c) => c.name)])]
}

/** Every user (the Users screen lists them, a group's members are picked from them). */
export const useUsers = () =>
  useQuery({ queryKey: keys.users, queryFn: async () => (await get<{ users: User[] }>('/api/admin/user-admin')).users })

/** Every group (the Groups screen lists them, a project's access gives them a role). */
export const useGroups = () =>
  useQuery({ queryKey: keys.groups, queryFn: async () => (await get<{ groups: Group[] }>('/api/admin/groups')).groups })
