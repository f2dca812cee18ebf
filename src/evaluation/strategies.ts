import { hostname } from 'node:os'
import { Address4 } from 'ip-address'
import { always, type Evaluation, never, resolveContextValue, type Test } from './context.js'
import { bucketIn, bucketRest, rolloutGroup, strategyBucket } from './murmur.js'

/** The SDK's applicationHostname: the process's host name, lower case. */
const HOSTNAME = (process.env.HOSTNAME || hostname() || 'undefined').toLowerCase()

const splitList = (list: string | undefined) => (list ? list.split(/\s*,\s*/) : [])

/** A built-in strategy's own rule (after its constraints); undefined for a strategy the SDK does not know. */
export function compileStrategyRule (name: string, parameters: Record<string, string>): Test | undefined {
  switch (name) {
    case 'default':
      return always
    case 'flexibleRollout': {
      const percentage = Number(parameters.rollout)
      const stickiness = parameters.stickiness || 'default'
      if (!(percentage > 0)) return never
      const given = parameters.groupId
      // Without a groupId, the SDK falls back to the context's featureToggle field.
      const group = given ? rolloutGroup(given) : undefined
      const bucket = (id: string, e: Evaluation) => (group !== undefined ? bucketRest(group, e.rest(id)) : strategyBucket(id, `${(e.context.featureToggle as string | undefined) || ''}`))
      // At 100 % a stickiness that always yields an id is on for everyone.
      if (percentage >= 100 && (stickiness === 'default' || stickiness === 'random')) return always
      const randomId = (e: Evaluation) => `${Math.round(e.random() * 10000) + 1}`
      const id =
        stickiness === 'default'
          ? (e: Evaluation) => (e.context.userId as string | undefined) || (e.context.sessionId as string | undefined) || randomId(e)
          : stickiness === 'random'
            ? randomId
            : (e: Evaluation) => resolveContextValue(e.context, stickiness)
      if (stickiness === 'default' && group !== undefined) {
        // The common rollout, with one call less: the id of default stickiness is never empty.
        return (e) => {
          const { userId, sessionId } = e.context as { userId?: string; sessionId?: string }
          return bucketRest(group, e.rest(`${userId || sessionId || randomId(e)}`)) <= percentage
        }
      }
      return (e) => {
        const stickinessId = id(e)
        if (!stickinessId) return false
        return bucket(`${stickinessId}`, e) <= percentage
      }
    }
    case 'gradualRolloutUserId':
    case 'gradualRolloutSessionId': {
      const field = name === 'gradualRolloutUserId' ? 'userId' : 'sessionId'
      const percentage = Number(parameters.percentage)
      const group = rolloutGroup(parameters.groupId || '')
      if (!(percentage > 0)) return never
      return (e) => {
        const id = e.context[field]
        return Boolean(id) && bucketIn(group, `${id as string}`) <= percentage
      }
    }
    case 'gradualRolloutRandom': {
      const percentage = Number(parameters.percentage)
      if (percentage >= 100) return always
      if (!(percentage >= 1)) return never
      return (e) => percentage >= Math.floor(e.random() * 100) + 1
    }
    case 'userWithId': {
      const ids = new Set(splitList(parameters.userIds))
      if (ids.size === 0) return never
      return (e) => e.context.userId !== undefined && ids.has(e.context.userId as string)
    }
    case 'remoteAddress': {
      if (!parameters.IPs) return never
      const ranges = parameters.IPs.split(/\s*,\s*/).map((range) => {
        try {
          return { range, subnet: new Address4(range) }
        } catch {
          return { range, subnet: undefined }
        }
      })
      return (e) => {
        const remote = e.context.remoteAddress
        let address: Address4 | null | undefined
        return ranges.some(({ range, subnet }) => {
          if (range === remote) return true
          if (subnet === undefined) return false
          if (address === undefined) {
            try {
              address = new Address4((remote as string) || '')
            } catch {
              address = null
            }
          }
          try {
            return address !== null && address.isInSubnet(subnet)
          } catch {
            return false
          }
        })
      }
    }
    case 'applicationHostname':
      return splitList(parameters.hostNames?.toLowerCase()).includes(HOSTNAME) ? always : never
    default:
      return undefined
  }
}
