import type { FastifyReply } from 'fastify'
import { ApiError } from '../errors.js'
import { ifMatchHolds, notModified } from './etag.js'

/**
 * A conditional read, for every route that answers with an ETag: the ETag is sent; when the
 * request's If-None-Match holds for it (weak comparison) the answer is 304 without a body and
 * `body` is never computed; otherwise 200 with the JSON (text, or bytes already encoded) `body`
 * gives, or the bytes of another `type` (the UI's files).
 */
export async function replyConditionally (
  reply: FastifyReply,
  ifNoneMatch: string | undefined,
  etag: string,
  body: () => string | Buffer | Promise<string | Buffer>,
  type = 'application/json; charset=utf-8'
) {
  return replyHeld(reply, etag, ifNoneMatch !== undefined && notModified(ifNoneMatch, etag) ? undefined : await body(), type)
}

/**
 * The answer of every conditional read: the ETag, then 304 without a body when the client
 * holds the answer (`body` undefined), else 200 with the body (JSON unless `type` says otherwise). Called directly by a resource
 * that decides itself whether the client holds it: a delta compares the revision the client
 * sent (quoted, weak or bare) with the current one.
 */
export function replyHeld (reply: FastifyReply, etag: string, body: string | Buffer | undefined, type = 'application/json; charset=utf-8') {
  reply.header('etag', etag)
  if (body === undefined) return reply.code(304).send()
  return reply.type(type).send(body)
}

/**
 * A conditional write, for every write that honours If-Match: 412 unless the header (when sent)
 * holds for the current ETag (strong comparison). Call it with the thing locked, so that the
 * ETag cannot move before the write.
 */
export function requireIfMatch (ifMatch: string | undefined, etag: string): void {
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, etag)) {
    throw new ApiError('PreconditionFailedError', `If-Match ${ifMatch} does not match the current ETag ${etag}`)
  }
}
