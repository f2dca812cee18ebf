import { describe, expect, it } from 'vitest'
import { documentedRoutes, json, useTestApp } from '../../helpers/app.js'

const t = useTestApp()

describe('OpenAPI', () => {
  it('serves the document at /docs/json and the UI at /docs without a token', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    expect(doc.openapi).toBe('3.1.0')
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(ui.statusCode).toBe(200)
    expect(ui.headers['content-type']).toContain('text/html')
  })

  it('documents every /api/admin route with its error responses and the token', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    const routes = (await documentedRoutes(t.app)).filter(
      (r) => r.url.startsWith('/api/admin') && r.method !== 'HEAD'
    )
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}')
      const op = doc.paths[path]?.[route.method.toLowerCase()]
      expect(op, `${route.method} ${path}`).toBeDefined()
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '503']))
      const problem = op.responses['401'].content['application/problem+json'].schema
      expect(problem).toEqual({ $ref: '#/components/schemas/ErrorBody' })
    }
    expect(Object.keys(doc.components.schemas.ErrorBody.properties)).toEqual([
      'type',
      'title',
      'status',
      'detail',
      'id',
      'name',
      'message',
      'details',
      // A 401 without credentials says where to log in, as Unleash, and the other ways in (single sign-on).
      'path',
      'defaultHidden',
      'options',
    ])
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ in: 'header', name: 'Authorization' })
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ in: 'cookie', name: 'unleash-session' })
  })

  it('describes the variants patch body with the allowed ops', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    const patch =
      doc.paths['/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants'].patch
    const body = JSON.stringify(patch.requestBody)
    expect(body).toContain('"add","remove","replace","copy","move"')
    for (const status of ['400', '403', '404', '412', '413', '415']) {
      expect(patch.responses[status], status).toBeDefined()
    }
  })

  it('every free-text parameter says in its schema that NUL and lone surrogates are refused', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    const free: string[] = []
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string; schema: any }[] }>>)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const p of op.parameters ?? []) {
          if (p.in === 'header' || p.schema.type !== 'string' || p.schema.enum !== undefined) continue
          if (p.schema.pattern === undefined) free.push(`${method} ${path} ${p.in} ${p.name}`)
          else expect(new RegExp(p.schema.pattern, 'u').test('a\u0000b'), `${method} ${path} ${p.name}`).toBe(false)
        }
      }
    }
    expect(free).toEqual([])
  })

  it('the api-tokens body refuses in its schema what the route refuses', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/docs/json' }))
    const schema = doc.paths['/api/admin/api-tokens'].post.requestBody.content['application/json'].schema
    const { Ajv2020 } = await import('ajv/dist/2020.js')
    const validate = new Ajv2020({ strict: false }).compile(schema)
    expect(validate({ tokenName: 'a' })).toBe(true)
    expect(validate({ tokenName: 'a', type: 'client', environment: 'development' })).toBe(true)
    expect(validate({ tokenName: 'a', type: 'client' })).toBe(false)
    expect(validate({ tokenName: 'a', type: 'client', environment: 'development', environments: ['development'] })).toBe(false)
    expect(validate({ tokenName: 'a', environment: 'development' })).toBe(false)
    expect(validate({ tokenName: 'a', type: 'admin', environment: 'development' })).toBe(false)
    expect(validate({ tokenName: 'a', project: 'default', projects: ['default'] })).toBe(false)
    expect(validate({ tokenName: 'ffa_a' })).toBe(false)
  })
})
