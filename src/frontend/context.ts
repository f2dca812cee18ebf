/** An evaluation context as Unleash's SDKs take it: top-level fields, and properties; values are strings. */
export interface FrontendContext {
  userId?: string
  sessionId?: string
  remoteAddress?: string
  currentTime?: string
  appName?: string
  environment?: string
  properties: Record<string, string>
}

/** Context fields the SDKs read at the top level; any other name is a property, as Unleash reads them. */
const TOP_LEVEL = new Set(['userId', 'sessionId', 'remoteAddress', 'currentTime', 'appName', 'environment'])
const PROPERTY = /^properties\[(.+)\]$/

/**
 * The evaluation context of a frontend API request, as Unleash builds it: `userId`,
 * `sessionId`, `remoteAddress`, `currentTime`, `appName` and `environment` at the top level,
 * `properties[name]=value` (or a `properties` object) and every other name as properties
 * (explicit properties win). Empty values are left out. `remoteAddress` defaults to the
 * caller's address.
 */
export function frontendContext (fields: Record<string, unknown>, callerAddress: string): FrontendContext {
  const context: Record<string, unknown> = {}
  const properties: Record<string, string> = {}
  const explicit: Record<string, string> = {}
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, v] of Object.entries(value)) if (typeof v === 'string' && v !== '') explicit[key] = v
      continue
    }
    if (typeof value !== 'string' || value === '') continue
    const property = PROPERTY.exec(name)
    if (property) explicit[property[1]!] = value
    else if (TOP_LEVEL.has(name)) context[name] = value
    else properties[name] = value
  }
  Object.assign(properties, explicit)
  if (context.remoteAddress === undefined) context.remoteAddress = callerAddress
  return { ...context, properties }
}

/**
 * The context of an OFREP request: `targetingKey` is the `userId`; values must be strings,
 * numbers or booleans (numbers and booleans become strings, as Unleash contexts hold strings),
 * and the top-level names of the frontend API keep their meaning. Returns why it is invalid
 * instead, for an INVALID_CONTEXT answer.
 */
export function ofrepContext (fields: Record<string, unknown>, callerAddress: string): FrontendContext | string {
  const flat: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      flat.properties = value
      continue
    }
    if (value === null) continue
    if (typeof value === 'object') return `context.${name} must be a string, a number or a boolean`
    flat[name === 'targetingKey' ? 'userId' : name] = String(value)
  }
  return frontendContext(flat, callerAddress)
}
