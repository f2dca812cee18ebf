import { ApiError, notFound } from '../errors.js'
import { writeChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { checkPassword } from './passwords.js'
import { authorName, roleByName } from './roles.js'
import { deleteSessionsOf } from './sessions.store.js'
import { addResetLink } from './reset-links.js'
import { findResetToken, resetTokenHash, takeResetToken } from './reset-tokens.store.js'
import { auditOf, type PeopleContext, user } from './users.service.js'
import { findUserByLogin, lockUser, setPasswordHash } from './users.store.js'
import { ROLE_IDS } from '../vocabulary/roles.js'

const invalidToken = () => new ApiError('InvalidTokenError', 'Token was not valid')

/**
 * A password-reset link for the user with this email or username (as Unleash's, an Admin hands
 * it on: no mail is sent). 404 when no user has it. Records user-updated with
 * `passwordResetLinkCreated: true` (never the token).
 */
export async function createResetLink (ctx: PeopleContext, login: string, base: string, author: Author): Promise<string> {
  const target = await findUserByLogin(ctx.db, login)
  if (!target) throw notFound(`Could not find ${login}`)
  return writeChange(ctx.db, async (change) => {
    // Locked: two Admins asking at once make one link, and the second waits to be told 429.
    const current = await lockUser(change.trx, target.id)
    const url = await addResetLink(change, current.id, 'reset', base, author.name)
    change.record({ type: 'user-updated', createdBy: author, data: toJsonText({ ...JSON.parse(auditOf(current)), passwordResetLinkCreated: true }) })
    return url
  })
}

/** Whose a live link is, in Unleash's tokenUserSchema; 401 InvalidTokenError for one unknown, used or expired. */
export async function resetTokenUser (ctx: Pick<PeopleContext, 'db'>, token: string) {
  const found = await findResetToken(ctx.db, resetTokenHash(token))
  if (!found) throw invalidToken()
  const target = await user(ctx.db, found.user_id)
  const role = roleByName(target.rootRole)
  return {
    id: target.id,
    ...(target.name !== null && { name: target.name }),
    email: target.email ?? '',
    token,
    createdBy: found.created_by,
    role: { id: ROLE_IDS[target.rootRole], type: role.type, name: role.name, description: role.description },
  }
}

/**
 * Sets a password with a link: the link must be live (401 otherwise), the password follow the
 * rules (400 naming the rule). The link and every other of the user's are used up, and every
 * session of theirs ends. Records user-updated with `passwordChanged: true`, by the user.
 */
export async function resetPassword (ctx: PeopleContext, token: string, password: string): Promise<void> {
  const tokenHash = resetTokenHash(token)
  const found = await findResetToken(ctx.db, tokenHash)
  if (!found) throw invalidToken()
  const target = await user(ctx.db, found.user_id)
  checkPassword(password, target)
  const passwordHash = await ctx.hasher.hash(password)
  await writeChange(ctx.db, async ({ trx, record }) => {
    // The user first, then their links: the order in which a new link is made.
    const current = await lockUser(trx, found.user_id)
    if ((await takeResetToken(trx, tokenHash)) !== current.id) throw invalidToken()
    await setPasswordHash(trx, current.id, passwordHash)
    await deleteSessionsOf(trx, current.id)
    record({
      type: 'user-updated',
      createdBy: { name: authorName(current), userId: current.id },
      data: toJsonText({ ...JSON.parse(auditOf(current)), passwordChanged: true }),
    })
  })
}
