import { hash } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import type { LimitKey } from './login-limits.store.js'

/** The account a login names, as typed (known or not), without case or surrounding spaces. */
export const accountKey = (login: string): LimitKey => ({ scope: 'account', key: hash('sha256', `login:${login.trim().toLowerCase()}`, 'hex') })

/** A user's own account, for checks of their current password while signed in. */
export const userKey = (userId: number): LimitKey => ({ scope: 'account', key: hash('sha256', `user:${userId}`, 'hex') })

/**
 * The source a login comes from: an IPv4 address, or the /64 of an IPv6 address (one host
 * usually has a whole /64, and could otherwise change address at every attempt). `signup`:
 * the same source's sign-ups with invite links, counted apart from its logins.
 */
export function addressKey (ip: string, purpose: 'address' | 'signup' = 'address'): LimitKey {
  let source = ip
  if (ipaddr.isValid(ip)) {
    const parsed = ipaddr.process(ip)
    source = parsed.kind() === 'ipv6' ? `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64` : parsed.toString()
  }
  return { scope: 'address', key: hash('sha256', `${purpose}:${source}`, 'hex') }
}
