import { del, flagPath, post, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FeatureDetails, FlagRef } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export type FlagLink = FeatureDetails['links'][number]
export interface NewLink { url: string; title?: string }

/** A flag's links are part of the flag as its page reads it. */
const linkChanges = (flag: FlagRef) => () => [keys.flag(flag)]

export const useAddLink = (flag: FlagRef, after?: AfterWrite<NewLink, unknown>) =>
  useWrite((link: NewLink) => post(`${flagPath(flag)}/link`, link), linkChanges(flag), after)

export const useRemoveLink = (flag: FlagRef, after?: AfterWrite<FlagLink, unknown>) =>
  useWrite((link: FlagLink) => del(`${flagPath(flag)}/link/${seg(link.id)}`), linkChanges(flag), after)
