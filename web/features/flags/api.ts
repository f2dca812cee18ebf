import type { QueryClient } from '@tanstack/react-query'
import { del, flagPath, get, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, SearchResult } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'
import { readFilters, searchQuery } from './filters'

export interface NewFlag { name: string; type: string; description?: string }
export interface Settings { description: string | null; type: string; impressionData: boolean }

export const useCreateFlag = (project: string, after?: AfterWrite<NewFlag, unknown>) =>
  useWrite((flag: NewFlag) => post(`/api/admin/projects/${seg(project)}/features`, flag), () => [keys.flags(project)], after)

export const useSaveSettings = (flag: FlagRef, after?: AfterWrite<Settings, unknown>) =>
  useWrite((settings: Settings) => put(flagPath(flag), settings), () => [keys.flag(flag), keys.flags(flag.project)], after)

/** Archiving and reviving move the lifecycle too. */
const archiveChanges = (flag: FlagRef) => () => [keys.flag(flag), keys.flags(flag.project), keys.lifecycle(flag)]

export const useArchiveFlag = (flag: FlagRef, after?: AfterWrite<void, unknown>) =>
  useWrite(() => del(flagPath(flag)), archiveChanges(flag), after)

export const useReviveFlag = (flag: FlagRef, after?: AfterWrite<void, unknown>) =>
  useWrite(() => post(`/api/admin/projects/${seg(flag.project)}/revive`, { features: [flag.name] }), archiveChanges(flag), after)

/** Flags a search finds are read in pages of this many (the most the API answers at once). */
export const PAGE = 100

const searchPage = (query: string, offset: number) => get<SearchResult>(`/api/admin/search/features?${query}&offset=${offset}&limit=${PAGE}`)

/** A project's flags as the list's filters find them, page after page as the list scrolls. */
export const flagSearch = (project: string, query: string) => ({
  queryKey: keys.flagSearch(project, query),
  queryFn: ({ pageParam }: { pageParam: number }) => searchPage(query, pageParam),
  initialPageParam: 0,
  getNextPageParam: (last: SearchResult, pages: SearchResult[]) => {
    const read = pages.reduce((n, p) => n + p.features.length, 0)
    return read < last.total && last.features.length > 0 ? read : undefined
  },
})

/** How many flags a project has (one flag read, and the search's total). */
export const flagCount = (project: string) => ({
  queryKey: keys.flagSearch(project, 'count'),
  queryFn: async () => (await get<SearchResult>(`/api/admin/search/features?project=${encodeURIComponent(`IS:${project}`)}&limit=1`)).total,
})

/** Starts the first page of a flag list opened by its address, while the page still asks who is signed in. */
export function prefetchFlagList (client: QueryClient, path: string, search: string) {
  const parts = path.split('/').filter(Boolean)
  if (parts[0] !== 'projects' || parts.length !== 2 || !parts[1]) return
  let project: string
  try {
    project = decodeURIComponent(parts[1])
  } catch {
    return
  }
  client.prefetchInfiniteQuery(flagSearch(project, searchQuery(project, readFilters(search))))
}

/** Marks a flag stale, or no longer stale. */
export const useMarkStale = (flag: FlagRef, after?: AfterWrite<boolean, unknown>) =>
  useWrite((stale: boolean) => post(`/api/admin/projects/${seg(flag.project)}/stale`, { features: [flag.name], stale }), () => [keys.flag(flag), keys.flags(flag.project)], after)
