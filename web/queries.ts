// Every read the screens share, with its cache key: a write invalidates the keys it changed.
import { type QueryClient, useQuery } from '@tanstack/react-query'
import { get, seg } from './api'
import type { Environment, FeatureDetails, FeatureSummary, LifecycleStage, Project, Segment, StrategyDefinition } from './types'

export const keys = {
  projects: ['projects'] as const,
  environments: ['environments'] as const,
  features: (project: string) => ['features', project] as const,
  feature: (project: string, name: string) => ['feature', project, name] as const,
  lifecycle: (project: string, name: string) => ['lifecycle', project, name] as const,
  definitions: ['strategy-definitions'] as const,
  segments: ['segments'] as const,
  tags: (name: string) => ['tags', name] as const,
  tagTypes: ['tag-types'] as const,
  events: (filter: Record<string, string>) => ['events', filter] as const,
}

export const useProjects = () =>
  useQuery({ queryKey: keys.projects, queryFn: async () => (await get<{ projects: Project[] }>('/api/admin/projects')).projects })

export const useEnvironments = () =>
  useQuery({ queryKey: keys.environments, queryFn: async () => (await get<{ environments: Environment[] }>('/api/admin/environments')).environments })

export const featuresQuery = (project: string) => ({
  queryKey: keys.features(project),
  queryFn: async () => (await get<{ features: FeatureSummary[] }>(`/api/admin/projects/${seg(project)}/features`)).features,
})

export const featureQuery = (project: string, name: string) => ({
  queryKey: keys.feature(project, name),
  queryFn: () => get<FeatureDetails>(`/api/admin/projects/${seg(project)}/features/${seg(name)}`),
})

export const useFeatures = (project: string) => useQuery(featuresQuery(project))

export const useFeature = (project: string, name: string) => useQuery(featureQuery(project, name))

/**
 * Starts reading what the first screen shows while the script asks who is signed in: a flag
 * list or a flag opened by its address appears one round trip sooner. A 401 here is ignored
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
  if (parts.length === 2) client.prefetchQuery(featuresQuery(parts[1]))
  else if (parts[2] === 'features' && parts[3]) client.prefetchQuery(featureQuery(parts[1], parts[3]))
}

export const useLifecycle = (project: string, name: string) =>
  useQuery({
    queryKey: keys.lifecycle(project, name),
    queryFn: () => get<LifecycleStage[]>(`/api/admin/projects/${seg(project)}/features/${seg(name)}/lifecycle`),
  })

export const useDefinitions = () =>
  useQuery({
    queryKey: keys.definitions,
    queryFn: async () => (await get<{ strategies: StrategyDefinition[] }>('/api/admin/strategies')).strategies,
    staleTime: 60_000,
  })

export const useSegments = () =>
  useQuery({ queryKey: keys.segments, queryFn: async () => (await get<{ segments: Segment[] }>('/api/admin/segments')).segments })
