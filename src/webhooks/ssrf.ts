import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/** Resolves a host name to every address it has (dns.lookup with `all`). Tests pass their own. */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>

export const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true })

/** Where a URL may be sent: its address, checked; the request connects to exactly this one. */
export interface CheckedTarget {
  url: URL
  address: string
  family: 4 | 6
}

/** Cloud metadata services, named for what they are although their ranges are refused anyway. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'])

const RULES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address (RFC 1918)',
  uniqueLocal: 'a private address (unique local, fc00::/7)',
  linkLocal: 'a link-local address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  carrierGradeNat: 'a shared address (carrier-grade NAT, 100.64.0.0/10)',
}

/**
 * Why a webhook may not reach this address, or undefined when it may: anything but a public
 * unicast address (loopback, private, link-local, cloud metadata, unspecified, multicast,
 * reserved ranges, and IPv4-mapped IPv6 forms of them) is refused, unless it is inside one of
 * the allowed networks (WEBHOOK_ALLOWED_NETWORKS).
 */
export function refusedAddress (text: string, allowedNetworks: readonly string[]): string | undefined {
  if (!ipaddr.isValid(text)) return `${text} is not an IP address`
  const raw = ipaddr.parse(text)
  // ::ffff:127.0.0.1 is 127.0.0.1: checked (and allowed) as the IPv4 address it reaches.
  const address = ipaddr.process(text)
  for (const cidr of allowedNetworks) {
    const [network, bits] = ipaddr.parseCIDR(cidr)
    for (const candidate of [address, raw]) {
      if (candidate.kind() === network.kind() && candidate.match(network, bits)) return undefined
    }
  }
  const shown = address.toString()
  if (METADATA.has(shown)) return `${shown} is a cloud metadata address`
  const range = address.range()
  if (address.kind() === 'ipv6' && !address.match(ipaddr.parse('2000::'), 3) && range === 'unicast') {
    return `${shown} is not a global unicast address (2000::/3)`
  }
  if (range === 'unicast') return undefined
  return `${shown} is ${RULES[range] ?? `a reserved address (${range})`}`
}

/**
 * An error the check raises: `rule` says why, for a 400 at save. At send, a refused URL or
 * address makes the delivery dead; a host that does not resolve (now) is a failed attempt,
 * retried like any other (`transient`).
 */
export class RefusedTarget extends Error {
  constructor (readonly rule: string, readonly transient = false) {
    super(rule)
    this.name = 'RefusedTarget'
  }
}

/** The URL's scheme and form, without resolving it: the part of the check that needs no network. */
export function checkUrlForm (text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new RefusedTarget('is not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RefusedTarget(`must use http or https, not ${url.protocol.slice(0, -1)}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new RefusedTarget('must not hold credentials (send them with parameters.authorization or customHeaders, which are never shown)')
  }
  return url
}

const withTimeout = <T>(promise: Promise<T>, ms: number, message: string) => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RefusedTarget(message, true)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Resolves the URL's host and checks every address it resolves to: one refused address refuses
 * the URL (a name pointing both outside and inside is refused). Returns the first address, which
 * the request then connects to, so that a second resolution cannot point it elsewhere.
 */
export async function checkTarget (
  text: string,
  options: { allowedNetworks: readonly string[]; resolve: Resolve; timeoutMs: number }
): Promise<CheckedTarget> {
  const url = checkUrlForm(text)
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  let addresses: { address: string; family: number }[]
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }]
  } else {
    try {
      addresses = await withTimeout(options.resolve(host), options.timeoutMs, `host ${host} did not resolve within ${options.timeoutMs} ms`)
    } catch (error) {
      if (error instanceof RefusedTarget) throw error
      throw new RefusedTarget(`host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`, true)
    }
  }
  if (addresses.length === 0) throw new RefusedTarget(`host ${host} does not resolve`, true)
  for (const { address } of addresses) {
    const refusal = refusedAddress(address, options.allowedNetworks)
    if (refusal !== undefined) {
      throw new RefusedTarget(`host ${host} resolves to ${refusal}; only public addresses are allowed, unless WEBHOOK_ALLOWED_NETWORKS lists them`)
    }
  }
  const first = addresses[0]!
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 }
}
