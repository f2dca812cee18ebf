import fc from 'fast-check'
import type { Variant } from '../../src/variants/variants.schemas.js'
import { validateVariants } from '../../src/variants/variants.js'

/** How many cases each fuzz property runs; FUZZ_RUNS=10000 for a long run. */
export const fuzzRuns = (normal: number) => Number(process.env.FUZZ_RUNS ?? normal)

/** A test timeout that grows with FUZZ_RUNS (a long run takes minutes). */
export const fuzzTimeout = 30_000 + Number(process.env.FUZZ_RUNS ?? 0) * 60

const name = fc.stringMatching(/^[a-z0-9]{1,6}$/)
const weightType = fc.constantFrom('variable', 'fix')

/** Something shaped like a variant, often invalid in one member. */
export const variantLike = fc.record(
  {
    name,
    weight: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: -5, max: 1200 }), fc.constant('10')),
    weightType,
    stickiness: fc.constantFrom('default', 'userId', ''),
    payload: fc.record({
      type: fc.constantFrom('json', 'csv', 'string', 'number', 'xml'),
      value: fc.constantFrom('{}', '[1]', '12', 'abc', '', '1e3'),
    }),
    overrides: fc.array(fc.record({ contextName: fc.constantFrom('userId', ''), values: fc.array(fc.string()) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['name', 'weight'] }
)

/** Stored variants: always valid, as the service only ever stores validated ones. */
export const storedVariants = fc
  .uniqueArray(fc.record({ name, weight: fc.integer({ min: 0, max: 300 }), weightType }), {
    selector: (v) => v.name,
    maxLength: 6,
  })
  .map((list) => {
    try {
      return validateVariants(list, { maxVariants: 1000, maxBytes: 1024 * 1024 }).variants
    } catch {
      return [] as Variant[]
    }
  })

const pointer = fc.oneof(
  fc.constantFrom('', '/-', '/0', '/1', '/2', '/9', '/0/weight', '/1/name', '/0/payload', '/0/weightType', '/x', '/-1', '/01', '/0/__proto__', '/0/constructor', '/0/payload/value'),
  fc.nat({ max: 8 }).map((i) => `/${i}`)
)

/** A well-formed RFC 6902 operation of the five allowed kinds. */
export const patchOperation = fc.oneof(
  fc.record({ op: fc.constant('add' as const), path: pointer, value: fc.oneof(variantLike, fc.anything()) }),
  fc.record({ op: fc.constant('replace' as const), path: pointer, value: fc.oneof(variantLike, fc.integer(), weightType) }),
  fc.record({ op: fc.constant('remove' as const), path: pointer }),
  fc.record({ op: fc.constant('move' as const), from: pointer, path: pointer }),
  fc.record({ op: fc.constant('copy' as const), from: pointer, path: pointer })
)

/** Anything a client might send as a patch body: good operations, broken ones, non-arrays. */
export const patchBody = fc.oneof(
  fc.array(patchOperation, { maxLength: 6 }),
  fc.array(
    fc.oneof(
      patchOperation,
      fc.record({ op: fc.string(), path: fc.string(), from: fc.anything(), value: fc.anything() }, { requiredKeys: [] }),
      fc.anything()
    ),
    { maxLength: 4 }
  ),
  fc.jsonValue()
)
