import { del, flagPath, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { FlagRef, Strategy } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

/** A flag's environment: where a switch and strategies are. */
export interface Place { feature: FlagRef; environment: string }

const environmentPath = ({ feature, environment }: Place) => `${flagPath(feature)}/environments/${seg(environment)}`

/** The flag's page and its row in the list show the switch and the strategies. */
const flagChanges = ({ feature }: Place) => () => [keys.flag(feature), keys.flags(feature.project)]

export const useSwitch = (place: Place, after?: AfterWrite<boolean, unknown>) =>
  useWrite((on: boolean) => post(`${environmentPath(place)}/${on ? 'on' : 'off'}`), flagChanges(place), after)

export const useRemoveStrategy = (place: Place, after?: AfterWrite<Strategy, unknown>) =>
  useWrite((s: Strategy) => del(`${environmentPath(place)}/strategies/${seg(s.id)}`), flagChanges(place), after)

export const useReorderStrategies = (place: Place, after?: AfterWrite<Strategy[], unknown>) =>
  useWrite((order: Strategy[]) => post(`${environmentPath(place)}/strategies/set-sort-order`, order.map((s, i) => ({ id: s.id, sortOrder: i }))), flagChanges(place), after)

export type StrategyBody = Omit<Strategy, 'id' | 'sortOrder'>

/** Adds a strategy, or changes `strategy` when given. */
export const useSaveStrategy = (place: Place, strategy: Strategy | null, after?: AfterWrite<StrategyBody, unknown>) =>
  useWrite(
    (body: StrategyBody) => (strategy ? put(`${environmentPath(place)}/strategies/${seg(strategy.id)}`, body) : post(`${environmentPath(place)}/strategies`, body)),
    flagChanges(place),
    after
  )
