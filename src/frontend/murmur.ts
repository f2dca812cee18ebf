/**
 * MurmurHash3 (x86, 32 bits) exactly as the Unleash SDKs compute it: each UTF-16 code unit
 * contributes its low byte, and the length is the number of code units. Math.imul gives the
 * low 32 bits of each product, which is all the algorithm keeps.
 */
export function murmur32 (key: string, seed: number): number {
  const length = key.length
  const tail = length & 3
  const blocks = length - tail
  let h = seed | 0
  let i = 0
  for (; i < blocks; i += 4) {
    let k = (key.charCodeAt(i) & 0xff) | ((key.charCodeAt(i + 1) & 0xff) << 8) | ((key.charCodeAt(i + 2) & 0xff) << 16) | ((key.charCodeAt(i + 3) & 0xff) << 24)
    k = Math.imul(k, 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, 0x1b873593)
    h ^= k
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  let k = 0
  switch (tail) {
    case 3: k ^= (key.charCodeAt(i + 2) & 0xff) << 16 // falls through
    case 2: k ^= (key.charCodeAt(i + 1) & 0xff) << 8 // falls through
    case 1:
      k ^= key.charCodeAt(i) & 0xff
      k = Math.imul(k, 0xcc9e2d51)
      k = (k << 15) | (k >>> 17)
      k = Math.imul(k, 0x1b873593)
      h ^= k
  }
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** A rollout's bucket, 1–100: `groupId:id` hashed with seed 0. */
export const strategyBucket = (id: string, groupId: string) => (murmur32(`${groupId}:${id}`, 0) % 100) + 1

const VARIANT_SEED = 86028157

/** A variant's target, 1–total: `groupId:seed` hashed with the variant seed. */
export const variantTarget = (seed: string, groupId: string, total: number) => (murmur32(`${groupId}:${seed}`, VARIANT_SEED) % total) + 1
