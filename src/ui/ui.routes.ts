import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { notFound } from '../errors.js'
import { replyConditionally } from '../http/conditional.js'
import type { UiFile } from './ui-files.js'

/**
 * The UI's own addresses: each loads the page, whose router shows the screen, so that a link
 * to a flag survives a refresh. Explicit, so that every other path (the API's above all)
 * answers exactly as it does without the UI.
 */
export const UI_PATHS = [
  '/',
  '/login',
  '/signed-out',
  '/projects',
  '/projects/*',
  '/segments',
  '/context',
  '/strategies',
  '/history',
  '/playground',
  '/import-export',
  '/api-tokens',
  '/webhooks',
  '/webhooks/*',
  '/users',
  '/groups',
  '/single-sign-on',
  '/profile',
  '/reset-password',
  '/new-user',
]

/** Pages whose address holds a secret (a reset or invitation token, an invite link's): their query is not logged. */
const SECRET_QUERY_PATHS = new Set(['/reset-password', '/new-user'])

/**
 * Scripts, styles, connections, images and fonts only from this origin; no inline script or
 * style element, no plugin, no framing, forms only back here (and, with `formOrigins`, to
 * those: the identity provider's sign-out the logout form is redirected to).
 */
export const contentSecurityPolicy = (formOrigins: string[] = []) => [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  ["form-action 'self'", ...formOrigins].join(' '),
  "frame-ancestors 'none'",
].join('; ')

/** The compressed copy the client accepts (brotli, then gzip), or the file as it is; 304 when its copy is current. */
function send (request: FastifyRequest, reply: FastifyReply, file: UiFile) {
  reply
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
  if (file.br || file.gzip) reply.header('vary', 'accept-encoding')
  return replyConditionally(reply, request.headers['if-none-match'], file.etag, () => {
    const accepts = String(request.headers['accept-encoding'] ?? '')
    const [encoding, bytes] = file.br && /\bbr\b/.test(accepts) ? ['br', file.br] : file.gzip && /\bgzip\b/.test(accepts) ? ['gzip', file.gzip] : [undefined, file.body]
    if (encoding) reply.header('content-encoding', encoding)
    return bytes
  }, file.type)
}

export const uiRoutes: FastifyPluginAsync<{ files: Map<string, UiFile>; formOrigins?: () => Promise<string[]> }> = async (app, { files, formOrigins }) => {
  const index = files.get('/index.html')!
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    reply
      .header('content-security-policy', contentSecurityPolicy(await formOrigins?.()))
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY')
      .header('cross-origin-opener-policy', 'same-origin')
    return send(request, reply, index)
  }
  for (const url of UI_PATHS) {
    app.get(url, { config: { access: 'public', secretQuery: SECRET_QUERY_PATHS.has(url) }, schema: { hide: true } }, page)
  }
  app.get('/assets/*', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const file = files.get(request.url.split('?')[0]!)
    if (!file) throw notFound('No such file')
    return send(request, reply, file)
  })
}
