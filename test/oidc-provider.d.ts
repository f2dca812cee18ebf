/** oidc-provider (OpenID Certified) ships no types: the little of it the tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface Grant {
    addOIDCScope (scope: string): void
    save (): Promise<string>
  }

  export interface KoaContextWithOIDC {
    oidc: {
      client: { clientId: string }
      session: { accountId?: string }
      params: Record<string, unknown>
      provider: { Grant: new (fields: { clientId: string; accountId?: string }) => Grant }
    }
  }

  export default class Provider {
    constructor (issuer: string, configuration: Record<string, unknown>)
    callback (): (req: IncomingMessage, res: ServerResponse) => void
    on (event: string, listener: (...args: unknown[]) => void): void
  }
}
