import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { ApiError, type ErrorDetail, problemAt, type RuleProblem } from './errors.js'
import { formatPointer } from './json-pointer.js'

/**
 * Bodies are validated exactly as sent: no coercion ("10" is not a number), no stripping of
 * unknown properties (a closed schema refuses them), no defaults written into the request.
 */
export const strictAjv = new Ajv({
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: false,
  strict: false,
  // Errors carry their schema, so that a refused member (Refused) can say why.
  verbose: true,
})

/** Path parameters and query strings arrive as text, so they are coerced as Fastify does by default. */
export const textAjv = new Ajv({
  coerceTypes: 'array',
  removeAdditional: true,
  useDefaults: true,
  allErrors: false,
  strict: false,
})

// `date-time` is checked for real dates and times (no month 13, no 25:61), which is what
// PostgreSQL will accept.
for (const ajv of [strictAjv, textAjv]) addFormats.default(ajv, ['date-time'])

/** Ajv errors as problems placed at the offending member, below `base`. */
export function ajvProblems (errors: ErrorObject[], base = ''): RuleProblem[] {
  return errors
    .filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames')
    .map((e) => {
      let at = `${base}${e.instancePath}`
      let text = e.message ?? 'is invalid'
      if (e.keyword === 'required') {
        at = `${at}/${e.params.missingProperty}`
        text = 'is required'
      } else if (e.keyword === 'additionalProperties') {
        at = `${at}/${e.params.additionalProperty}`
        text = 'is not an allowed property'
      } else if (e.keyword === 'enum') {
        text = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
      } else if (e.keyword === 'not' && typeof e.parentSchema?.description === 'string') {
        text = e.parentSchema.description
      }
      if (e.propertyName !== undefined) {
        // A member name refused by propertyNames: the place is the member, the rule its name's.
        at = `${at}/${formatPointer([e.propertyName]).slice(1)}`
        text = `is not an allowed member name: it ${text}`
      }
      return problemAt(at, text)
    })
}

/** Ajv's errors as a route's 400 details, each path pointing into the request below `root` (`/body/0/op`). */
export function ajvErrorDetails (errors: ErrorObject[], root: string): ErrorDetail[] {
  return ajvProblems(errors).map((p) => ({
    path: root + (p.at ?? ''),
    message: p.describe(root + (p.at ?? '')),
  }))
}

/**
 * `value` when the compiled body schema `check` takes it; else the 400 a route with that body
 * schema answers, its paths below `root` (`/body`, or an element of a larger body such as an
 * import's `/body/data/features/3`): one check, and one sentence, for both.
 */
export function requireValid<T> (check: ValidateFunction, value: unknown, root = '/body'): T {
  if (check(value)) return value as T
  const details = ajvErrorDetails(check.errors ?? [], root)
  throw new ApiError('BadDataError', details[0]?.message ?? `${root} is invalid`, details)
}

/** RFC 8259 number grammar ("12", "-0.5", "1e3"; not "abc", "0x10", " 1") and finite. */
const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
export const isFiniteNumberText = (text: string) => NUMBER_LITERAL.test(text) && Number.isFinite(Number(text))
