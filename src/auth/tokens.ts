import { hash, randomBytes } from 'node:crypto'

export const ALL = '*'

export const TOKEN_TYPES = ['admin', 'client', 'frontend'] as const
/**
 * `admin` tokens call the admin API; `client` tokens (Unleash server SDKs) the client API only;
 * `frontend` tokens (browser and mobile apps) the frontend API and OFREP only.
 */
export type TokenType = (typeof TOKEN_TYPES)[number]

export interface TokenScope {
  name: string
  type: TokenType
  projects: string[]
  environments: string[]
}

/** Secrets are random (or operator-chosen for INIT_ADMIN_API_TOKENS) and kept only as SHA-256. */
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex')

export const generateSecret = () => `ffa_${randomBytes(24).toString('base64url')}`

/**
 * A client or frontend token's secret in Unleash's form, `project:environment.<random>`: the
 * project when there is one, `*` for all, `[]` for several.
 */
export function generateClientSecret (projects: string[], environment: string): string {
  const project = projects.length === 1 ? projects[0] : '[]'
  return `${project}:${environment}.${randomBytes(24).toString('hex')}`
}

/** `Authorization: <secret>` or `Authorization: Bearer <secret>`, as Unleash. */
export function secretFromHeader (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const value = header.trim()
  const bearer = /^bearer\s+/i.exec(value)
  const secret = bearer ? value.slice(bearer[0].length).trim() : value
  return secret.length > 0 ? secret : undefined
}

const covers = (list: string[], name: string) => list.includes(ALL) || list.includes(name)

export const coversProject = (token: TokenScope, project: string) => covers(token.projects, project)
export const coversEnvironment = (token: TokenScope, environment: string) =>
  covers(token.environments, environment)
export const isAdmin = (token: TokenScope) =>
  token.projects.includes(ALL) && token.environments.includes(ALL)
