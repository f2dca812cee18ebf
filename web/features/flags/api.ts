import { del, flagPath, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

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
