import { hash, randomBytes } from 'node:crypto'
import type { Database } from '../db/types.js'
import { badData, notFound } from '../errors.js'
import { withChange, writeChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import type { Person } from './roles.js'
import { countPats, deletePat, findPatOwner, insertPat, listPats, type PersonalAccessToken, touchPat } from './pats.store.js'

/** As Unleash: a user has at most this many personal access tokens. */
export const MAX_PATS_PER_USER = 10

/** Unleash's form of a personal access token's secret. */
export const PAT_SECRET = /^user:[0-9a-f]{56}$/

const secretHash = (secret: string) => hash('sha256', secret, 'hex')

/** What events record of a token: never its secret. */
const auditOf = (pat: PersonalAccessToken) => toJsonText({ id: pat.id, description: pat.description, expiresAt: pat.expiresAt, userId: pat.userId })

export const pats = (db: Database, person: Person) => listPats(db, person.id)

/**
 * Creates a personal access token for the person (pat-created) and returns it with its
 * secret, which is not kept. `expiresAt` must be in the future; the description unique among
 * the person's tokens (409).
 */
export async function createPat (db: Database, person: Person, body: { description: string; expiresAt: string }, author: Author) {
  const expiresAt = new Date(body.expiresAt)
  if (!(expiresAt.getTime() > Date.now())) {
    throw badData('expiresAt must be in the future', [{ path: '/body/expiresAt', message: 'must be in the future' }])
  }
  const secret = `user:${randomBytes(28).toString('hex')}`
  const created = await writeChange(db, async ({ trx, record }) => {
    if ((await countPats(trx, person.id)) >= MAX_PATS_PER_USER) {
      throw badData(`A user may have at most ${MAX_PATS_PER_USER} personal access tokens; delete one first`)
    }
    const pat = await insertPat(trx, person.id, { description: body.description, expiresAt }, secretHash(secret))
    record({ type: 'pat-created', createdBy: author, data: auditOf(pat) })
    return pat
  })
  return { ...created, secret }
}

/** Deletes one of the person's tokens (pat-deleted); 404 when they have none with that id. */
export function removePat (writer: Writer, person: Person, id: number, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const deleted = await deletePat(trx, id, person.id)
    if (!deleted) throw notFound(`You have no personal access token ${id}`)
    record({ type: 'pat-deleted', createdBy: author, preData: auditOf(deleted) })
  })
}

/** The owner of an unexpired token, with their current roles; its last use is written at most once a minute. */
export async function patPerson (db: Database, secret: string): Promise<Person | undefined> {
  const found = await findPatOwner(db, secretHash(secret), 60_000)
  if (!found) return undefined
  if (found.stale) await touchPat(db, found.patId)
  return found.person
}
