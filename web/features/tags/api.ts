import { useQuery } from '@tanstack/react-query'
import { del, get, post, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, Tag, TagType } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

const tagsPath = (flag: FlagRef) => `/api/admin/features/${seg(flag.name)}/tags`

export const useFlagTags = (flag: FlagRef) =>
  useQuery({ queryKey: keys.tags(flag.name), queryFn: async () => (await get<{ tags: Tag[] }>(tagsPath(flag))).tags })

export const useTagTypes = () =>
  useQuery({ queryKey: keys.tagTypes, queryFn: async () => (await get<{ tagTypes: TagType[] }>('/api/admin/tag-types')).tagTypes, staleTime: 60_000 })

/** The flag's tags, and its row in the list (which shows them). */
const tagChanges = (flag: FlagRef) => () => [keys.tags(flag.name), keys.flags(flag.project)]

export const useAddTag = (flag: FlagRef, after?: AfterWrite<Tag, unknown>) =>
  useWrite((tag: Tag) => post(tagsPath(flag), tag), tagChanges(flag), after)

export const useRemoveTag = (flag: FlagRef, after?: AfterWrite<Tag, unknown>) =>
  useWrite((t: Tag) => del(`${tagsPath(flag)}/${seg(t.type)}/${seg(t.value)}`), tagChanges(flag), after)
