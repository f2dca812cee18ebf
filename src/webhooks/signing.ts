import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export const generateSigningSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,<base64 HMAC-SHA256>` of
 * `<webhook-id>.<webhook-timestamp>.<body>` under each secret's key, space-separated.
 */
export function signatures (secrets: readonly string[], messageId: string, timestamp: number, body: string): string {
  const content = `${messageId}.${timestamp}.${body}`
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice(PREFIX.length), 'base64')).update(content).digest('base64')}`)
    .join(' ')
}
