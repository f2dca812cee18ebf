/**
 * What a caller may reach: the projects and environments of its token. Every capability reads
 * it (to answer only what the caller may see); only the auth plugin makes it.
 */
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
  /** An API token's expiry (null: never); from then on it authenticates nothing. */
  expiresAt?: Date | null
}

const covers = (list: string[], name: string) => list.includes(ALL) || list.includes(name)

export const coversProject = (token: TokenScope, project: string) => covers(token.projects, project)
export const coversEnvironment = (token: TokenScope, environment: string) =>
  covers(token.environments, environment)
export const isAdmin = (token: TokenScope) =>
  token.projects.includes(ALL) && token.environments.includes(ALL)
