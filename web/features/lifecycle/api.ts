import { useQuery } from '@tanstack/react-query'
import { flagPath, get, post } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, LifecycleStage } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'
import type { CompletionStatus } from '../../../src/vocabulary/stages'

export const useLifecycle = (flag: FlagRef) =>
  useQuery({ queryKey: keys.lifecycle(flag), queryFn: () => get<LifecycleStage[]>(`${flagPath(flag)}/lifecycle`) })

/** The flag's page and its row in the list show its stage; the lifecycle read, the timeline. */
const stageChanges = (flag: FlagRef) => () => [keys.flag(flag), keys.lifecycle(flag), keys.flags(flag.project)]

export interface Completion { status: CompletionStatus; statusValue?: string }

export const useComplete = (flag: FlagRef, after?: AfterWrite<Completion, unknown>) =>
  useWrite((completion: Completion) => post(`${flagPath(flag)}/lifecycle/complete`, completion), stageChanges(flag), after)

export const useUncomplete = (flag: FlagRef, after?: AfterWrite<void, unknown>) =>
  useWrite(() => post(`${flagPath(flag)}/lifecycle/uncomplete`), stageChanges(flag), after)
