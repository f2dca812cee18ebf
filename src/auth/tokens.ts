import { createHash, randomBytes } from 'node:crypto'

export const ALL = '*'

export interface TokenScope {
  name: string
  projects: string[]
  environments: string[]
}

/** Secrets are random (or operator-chosen for INIT_ADMIN_API_TOKENS) and kept only as SHA-256. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')

export const generateSecret = () => `ffa_${randomBytes(24).toString('base64url')}`

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
