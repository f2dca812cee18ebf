import { propose, proposalReads } from '../../api/change-requests'
import { del, flagPath, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, Strategy } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

/**
 * A flag's environment: where a switch and strategies are. `guarded`: people change it through
 * change requests, so each write below adds a change to the caller's request instead.
 */
export interface Place { feature: FlagRef; environment: string; guarded?: boolean }

const environmentPath = ({ feature, environment }: Place) => `${flagPath(feature)}/environments/${seg(environment)}`

/** The flag's page and its row in the list show the switch and the strategies; a proposal changes only the requests. */
const changesOf = (place: Place) => () => (place.guarded ? proposalReads(place.feature) : [keys.flag(place.feature), keys.flags(place.feature.project)])

/** The write itself, or the change proposing it in a guarded environment. */
const writeOr = <V>(place: Place, direct: (v: V) => Promise<unknown>, change: (v: V) => { action: Parameters<typeof propose>[2][number]['action']; payload?: unknown }) =>
  (v: V) => (place.guarded ? propose(place.feature, place.environment, [{ feature: place.feature.name, ...change(v) }]) : direct(v))

export const useSwitch = (place: Place, after?: AfterWrite<boolean, unknown>) =>
  useWrite(writeOr(place, (on: boolean) => post(`${environmentPath(place)}/${on ? 'on' : 'off'}`), (on) => ({ action: 'updateEnabled', payload: { enabled: on } })), changesOf(place), after)

export const useRemoveStrategy = (place: Place, after?: AfterWrite<Strategy, unknown>) =>
  useWrite(writeOr(place, (s: Strategy) => del(`${environmentPath(place)}/strategies/${seg(s.id)}`), (s) => ({ action: 'deleteStrategy', payload: { id: s.id } })), changesOf(place), after)

const order = (strategies: Strategy[]) => strategies.map((s, i) => ({ id: s.id, sortOrder: i }))

export const useReorderStrategies = (place: Place, after?: AfterWrite<Strategy[], unknown>) =>
  useWrite(writeOr(place, (next: Strategy[]) => post(`${environmentPath(place)}/strategies/set-sort-order`, order(next)), (next) => ({ action: 'reorderStrategy', payload: order(next) })), changesOf(place), after)

export type StrategyBody = Omit<Strategy, 'id' | 'sortOrder'>

/** Adds a strategy, or changes `strategy` when given. */
export const useSaveStrategy = (place: Place, strategy: Strategy | null, after?: AfterWrite<StrategyBody, unknown>) =>
  useWrite(
    writeOr(
      place,
      (body: StrategyBody) => (strategy ? put(`${environmentPath(place)}/strategies/${seg(strategy.id)}`, body) : post(`${environmentPath(place)}/strategies`, body)),
      (body) => (strategy ? { action: 'updateStrategy', payload: { id: strategy.id, ...body } } : { action: 'addStrategy', payload: body })
    ),
    changesOf(place),
    after
  )
