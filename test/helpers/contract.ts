import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'

/** One response as the client received it. */
export interface RecordedResponse {
  method: string
  /** The matched route pattern (`:name` parameters), undefined when no route matched. */
  route: string | undefined
  hidden: boolean
  status: number
  headers: Record<string, unknown>
  body: string
}

interface Operation {
  responses: Record<string, {
    content?: Record<string, { schema: object }>
    headers?: Record<string, { required?: boolean }>
  }>
}

/** Records every response the app sends, for `checkContract`. Call before app.ready(). */
export function recordResponses (app: FastifyInstance): RecordedResponse[] {
  const recorded: RecordedResponse[] = []
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload) && payload !== undefined && payload !== null) return payload
    recorded.push({
      method: request.method,
      // A path the router could not decode is still an OFREP request when it is on OFREP's route.
      route: request.is404 ? undefined : (request.routeOptions.url ?? (request.method === 'POST' && request.url.startsWith('/ofrep/v1/evaluate/flags/') ? '/ofrep/v1/evaluate/flags/:key' : undefined)),
      hidden: request.routeOptions.schema?.hide === true,
      status: reply.statusCode,
      headers: { ...reply.getHeaders() },
      body: payload === undefined || payload === null ? '' : String(payload),
    })
    return payload
  })
  return recorded
}

const mediaType = (contentType: unknown) => String(contentType ?? '').split(';')[0]!.trim()

/**
 * Checks recorded responses against the OpenAPI document the app serves: the status is
 * documented for the operation, the Content-Type is one documented for it (none for a
 * response documented without content), the body is valid against the documented schema
 * (Ajv, JSON Schema 2020-12, formats checked), and headers documented as required are there.
 * Responses of no documented operation (no route matched; hidden routes) must be problem
 * bodies. Returns the violations, one line each.
 */
export async function checkContract (app: FastifyInstance, recorded: RecordedResponse[]): Promise<string[]> {
  const doc = JSON.parse((await app.inject({ method: 'GET', url: '/docs/json' })).body) as {
    paths: Record<string, Record<string, Operation>>
    components: object
  }
  const ajv = new Ajv2020({ strict: false, allErrors: false })
  addFormats.default(ajv)
  const validators = new Map<object, ValidateFunction>()
  const validatorFor = (schema: object) => {
    let validate = validators.get(schema)
    if (!validate) {
      validate = ajv.compile({ ...schema, components: doc.components })
      validators.set(schema, validate)
    }
    return validate
  }
  const errorSchema = { $ref: '#/components/schemas/ErrorBody' }
  const violations: string[] = []
  for (const r of recorded) {
    const where = `${r.method} ${r.route ?? '(no route)'} → ${r.status}`
    const type = mediaType(r.headers['content-type'])
    if (r.route === undefined || r.hidden || r.route.startsWith('/docs')) {
      if (r.status >= 400 && r.route?.startsWith('/docs') !== true) {
        if (type !== 'application/problem+json') violations.push(`${where}: ${type || 'no content type'} is not a problem body`)
        else if (!validatorFor(errorSchema)(JSON.parse(r.body))) violations.push(`${where}: invalid problem body ${r.body}`)
      }
      continue
    }
    const path = r.route.replace(/:(\w+)/g, '{$1}')
    const method = r.method === 'HEAD' ? 'get' : r.method.toLowerCase()
    const operation = doc.paths[path]?.[method]
    if (!operation) {
      violations.push(`${where}: no such operation in the document`)
      continue
    }
    const response = operation.responses[String(r.status)]
    if (!response) {
      violations.push(`${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`)
      continue
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && r.headers[name.toLowerCase()] === undefined) violations.push(`${where}: required header ${name} missing`)
    }
    if (!response.content) {
      if (r.body !== '' || type !== '') violations.push(`${where}: documented without content, sent ${type} ${r.body.slice(0, 80)}`)
      continue
    }
    const content = response.content[type]
    if (!content) {
      violations.push(`${where}: content type ${type || '(none)'} not documented (${Object.keys(response.content).join(', ')})`)
      continue
    }
    if (r.method === 'HEAD') continue
    const value = type.endsWith('json') ? JSON.parse(r.body) : r.body
    const validate = validatorFor(content.schema)
    if (!validate(value)) {
      violations.push(`${where}: body invalid (${ajv.errorsText(validate.errors)}): ${r.body.slice(0, 200)}`)
    }
  }
  return violations
}
