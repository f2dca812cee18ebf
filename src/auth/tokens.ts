import { hash, randomBytes } from 'node:crypto'

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
