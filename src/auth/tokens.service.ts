import type { Static } from '@sinclair/typebox'
import type { Transaction } from 'kysely'
import { type TokenScope, coversEnvironment, coversProject } from '../access/scope.js'
import type { Database, DB } from '../db/types.js'
import { badData, notFound } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { generateSecret, hasSecretForm } from './tokens.js'
import type { NewApiToken, TokenInfo } from './tokens.schemas.js'
import {
  type ApiToken,
  deleteToken,
  environmentExists,
  insertToken,
  listTokens,
  lockToken,
  projectExists,
  setExpiry,
  type TokenKey,
} from './tokens.store.js'

/** A token as it is shown (Unleash's apiTokenSchema): never its secret. */
export const tokenInfo = (t: ApiToken): Static<typeof TokenInfo> => ({
  tokenName: t.name,
  type: t.type,
  environment: t.environments.join(','),
  project: t.projects.join(','),
  projects: t.projects,
  expiresAt: t.expiresAt,
  createdAt: t.createdAt,
})

/**
 * Who reads the tokens: a caller that sees every token (an Admin, or an API token for
 * everything), or one that sees the client and frontend tokens of its scope (an Editor, as
 * Unleash's Editor holds READ_CLIENT_API_TOKEN and READ_FRONTEND_API_TOKEN; a Member, or a
 * token of some projects, on a project's tokens).
 */
export interface TokenReader {
  scope: TokenScope
  everything: boolean
}

const visibleTo = (reader: TokenReader) => (t: ApiToken) =>
  reader.everything ||
  (t.type !== 'admin' &&
    t.projects.every((p) => coversProject(reader.scope, p)) &&
    t.environments.every((e) => coversEnvironment(reader.scope, e)))

/** How `{token}` names a token: a value in a secret's form is a secret, any other a name. */
export const tokenKey = (value: string): TokenKey => (hasSecretForm(value) ? { secret: value } : { name: value })

/** Creates a token (api-token-created) and returns it with its secret, which is not kept. */
export async function createToken (writer: Writer, token: NewApiToken, createdBy: Author, project?: string) {
  const secret = generateSecret(token.projects, token.environments)
  const created = await withChange(writer, async ({ trx, record }) => {
    const inserted = await insertToken(trx, token, secret)
    record({ type: 'api-token-created', createdBy, project, data: toJsonText(tokenInfo(inserted)) })
    return inserted
  })
  return { ...tokenInfo(created), secret }
}

/** Every token the reader may see; only those of one name when asked (a secret names none). */
export async function tokens (db: Database, reader: TokenReader, name?: string) {
  if (name !== undefined && hasSecretForm(name)) return []
  return (await listTokens(db, { name })).filter(visibleTo(reader)).map(tokenInfo)
}

/** The token a request names; a secret that names none is no token (undefined), a name that names none is 404. */
async function lockNamed (trx: Transaction<DB>, value: string) {
  const key = tokenKey(value)
  const token = await lockToken(trx, key)
  if (!token && 'name' in key) throw notFound(`API token ${key.name} does not exist`)
  return token
}

/**
 * A token's new expiry (api-token-updated with the token before and after; the same expiry
 * again changes nothing). As Unleash: a secret that names no token changes nothing and is no
 * error. Returns the token's name when it changed, so that caches can forget it.
 */
export function changeExpiry (writer: Writer, value: string, expiresAt: Date, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockNamed(trx, value)
    if (!current || current.expiresAt?.getTime() === expiresAt.getTime()) return undefined
    const updated = await setExpiry(trx, current.name, expiresAt)
    record({ type: 'api-token-updated', createdBy, data: toJsonText(tokenInfo(updated)), preData: toJsonText(tokenInfo(current)) })
    return current.name
  })
}

/**
 * Deletes a token (api-token-deleted). As Unleash: a secret that names no token deletes nothing
 * and is no error. Returns the deleted token's name.
 */
export function removeToken (writer: Writer, value: string, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const current = await lockNamed(trx, value)
    if (!current) return undefined
    await deleteToken(trx, current.name)
    record({ type: 'api-token-deleted', createdBy, data: toJsonText(tokenInfo(current)) })
    return current.name
  })
}

const missingProject = (project: string) => notFound(`Project ${project} does not exist`)

/** The tokens of a project the reader may see: those whose projects name it (a token for every project belongs to none). */
export async function projectTokens (db: Database, project: string, reader: TokenReader) {
  if (!(await projectExists(db, project))) throw missingProject(project)
  return (await listTokens(db, { project })).filter(visibleTo(reader)).map(tokenInfo)
}

/** A client or frontend token of one project (api-token-created); the environment must exist. */
export async function createProjectToken (writer: Writer, project: string, token: Omit<NewApiToken, 'projects'>, createdBy: Author) {
  return withChange(writer, async (change) => {
    if (!(await projectExists(change.trx, project))) throw missingProject(project)
    const environment = token.environments[0]!
    if (!(await environmentExists(change.trx, environment))) throw badData(`/body/environment names no environment: ${environment}`)
    return createToken(change, { ...token, projects: [project] }, createdBy, project)
  })
}

/**
 * Deletes a token of one project (api-token-deleted), as Unleash: one the reader may not see,
 * or of no such secret, is 404; one of other or more projects than this one is 400.
 */
export function removeProjectToken (writer: Writer, project: string, value: string, reader: TokenReader, createdBy: Author) {
  return withChange(writer, async ({ trx, record }) => {
    if (!(await projectExists(trx, project))) throw missingProject(project)
    const key = tokenKey(value)
    const token = await lockToken(trx, key)
    if (!token || !token.projects.includes(project) || !visibleTo(reader)(token)) {
      throw notFound('name' in key ? `API token ${key.name} does not exist in project ${project}` : `No API token of project ${project} has this secret`)
    }
    if (token.projects.length !== 1) {
      throw badData(`API token ${token.name} is a token of projects ${token.projects.join(', ')}, not of project ${project} alone: delete it with DELETE /api/admin/api-tokens/{token}`)
    }
    await deleteToken(trx, token.name)
    record({ type: 'api-token-deleted', createdBy, project, data: toJsonText(tokenInfo(token)) })
    return token.name
  })
}
