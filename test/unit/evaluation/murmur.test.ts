/**
 * The SDK's hash (MurmurHash3 x86 32-bit, as murmurhash3js computes it), and the prepared forms
 * rollouts and variants hash with: the same numbers for any string and seed.
 */
import fc from 'fast-check'
import murmurHash3 from 'murmurhash3js'
import { describe, expect, it } from 'vitest'
import { murmur32, murmurAfter, murmurRest, prefixOf, prepareRest } from '../../../src/evaluation/murmur.js'

describe('murmur32', () => {
  it('is murmurhash3js x86 hash32 for any string (lone surrogates and astral characters included) and seed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom(0, 86028157, 1), (key, seed) => {
        expect(murmur32(key, seed)).toBe(murmurHash3.x86.hash32(key, seed))
      }),
      { numRuns: 2000 }
    )
  }, 30_000)

  it('from a prefix\'s state, is the hash of prefix + rest (the rest read, or prepared)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom(0, 86028157), (prefix, rest, seed) => {
        expect(murmurAfter(prefixOf(prefix, seed), rest)).toBe(murmurHash3.x86.hash32(prefix + rest, seed))
        expect(murmurRest(prefixOf(prefix, seed), prepareRest(rest))).toBe(murmurHash3.x86.hash32(prefix + rest, seed))
      }),
      { numRuns: 2000 }
    )
  }, 30_000)
})
