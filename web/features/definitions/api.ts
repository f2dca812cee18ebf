import { post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { StrategyDefinition, StrategyParameter } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface DefinitionBody { name: string; description: string | null; parameters: StrategyParameter[] }

/** Creates a strategy definition, or changes `definition` when given. */
export const useSaveDefinition = (definition: StrategyDefinition | null, after?: AfterWrite<DefinitionBody, unknown>) =>
  useWrite((body: DefinitionBody) => (definition ? put(`/api/admin/strategies/${seg(definition.name)}`, body) : post('/api/admin/strategies', body)), () => [keys.definitions], after)

/** Deprecates an active definition, reactivates a deprecated one. */
export const useToggleDeprecated = (after?: AfterWrite<StrategyDefinition, unknown>) =>
  useWrite((d: StrategyDefinition) => post(`/api/admin/strategies/${seg(d.name)}/${d.deprecated ? 'reactivate' : 'deprecate'}`), () => [keys.definitions], after)
