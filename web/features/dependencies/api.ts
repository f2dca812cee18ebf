import { del, flagPath, post, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface Dependency { feature: string; enabled: boolean; variants?: string[] }

/** The child's page lists its dependencies, the parent's its children. */
const dependencyChanges = (flag: FlagRef) => (parent: string) => [keys.flag(flag), keys.flag({ project: flag.project, name: parent })]

export const useAddDependency = (flag: FlagRef, after?: AfterWrite<Dependency, unknown>) =>
  useWrite((d: Dependency) => post(`${flagPath(flag)}/dependencies`, d), (d) => dependencyChanges(flag)(d.feature), after)

export const useRemoveDependency = (flag: FlagRef, after?: AfterWrite<string, unknown>) =>
  useWrite((parent: string) => del(`${flagPath(flag)}/dependencies/${seg(parent)}`), dependencyChanges(flag), after)
