import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { App } from '../../src/app.js'
import { auth, createToken, uniqueName } from './app.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
type Headers = Record<string, string>
type Reply = Promise<LightMyRequestResponse>

/** Requests through `app.inject`, each with one token's Authorization header (`headers` are added after it, and win). */
export interface Requester {
  send (method: Method, url: string, payload?: unknown, headers?: Headers): Reply
  get (url: string, headers?: Headers): Reply
  delete (url: string, payload?: unknown, headers?: Headers): Reply
  post (url: string, payload?: unknown, headers?: Headers): Reply
  put (url: string, payload?: unknown, headers?: Headers): Reply
  patch (url: string, payload?: unknown, headers?: Headers): Reply
}

/**
 * The one request helper of the integration tests, for an app (a `TestApp`, filled in by its
 * `beforeAll`, is read at each request, so this can be called at the top of a file):
 *
 *   const { admin, as, send, clientToken } = requests(t)
 *   await admin.post('/api/admin/projects', { id: 'p', name: 'P' })
 *   await as(await clientToken()).get('/api/client/features')
 *   await send('DELETE', url, undefined, scopedSecret)
 */
export function requests (t: { app: App }) {
  /** Requests with `secret` (the admin token when undefined). */
  const as = (secret?: string): Requester => {
    const send = (method: Method, url: string, payload?: unknown, headers: Headers = {}) =>
      t.app.inject({
        method,
        url,
        headers: { ...auth(secret), ...headers },
        ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
      })
    return {
      send,
      get: (url, headers) => send('GET', url, undefined, headers),
      delete: (url, payload, headers) => send('DELETE', url, payload, headers),
      post: (url, payload, headers) => send('POST', url, payload, headers),
      put: (url, payload, headers) => send('PUT', url, payload, headers),
      patch: (url, payload, headers) => send('PATCH', url, payload, headers),
    }
  }
  /** An API token of this type for one environment (every project unless named), made through the API; its secret. */
  const apiToken = (type: 'client' | 'frontend', environment = 'development', projects?: string[], tokenName = uniqueName(type === 'client' ? 'sdk' : 'web')) =>
    createToken(t.app, { type, environment, ...(projects && { projects }) }, tokenName)
  return {
    as,
    /** Requests with the admin token. */
    admin: as(),
    /** One request as `secret` (the admin token when undefined): the form most tests write. */
    send: (method: Method, url: string, payload?: unknown, secret?: string) => as(secret).send(method, url, payload),
    apiToken,
    clientToken: (environment?: string, projects?: string[], tokenName?: string) => apiToken('client', environment, projects, tokenName),
    frontendToken: (environment?: string, projects?: string[], tokenName?: string) => apiToken('frontend', environment, projects, tokenName),
  }
}
