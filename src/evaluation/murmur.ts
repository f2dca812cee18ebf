/**
 * MurmurHash3 (x86, 32 bits) exactly as the Unleash SDKs compute it: each UTF-16 code unit
 * contributes its low byte, and the length is the number of code units. Math.imul gives the
 * low 32 bits of each product, which is all the algorithm keeps.
 */
export function murmur32 (key: string, seed: number): number {
  const length = key.length
  const blocks = length - (length & 3)
  let h = seed | 0
  let i = 0
  for (; i < blocks; i += 4) h = mixBlock(h, blockAt(key, i))
  let k = 0
  for (let j = i; j < length; j++) k |= byteAt(key, j) << (8 * (j - i))
  if (length > blocks) h ^= mixK(k)
  return finish(h ^ length)
}

/** A code unit's low byte: what the SDKs hash of it. */
const byteAt = (text: string, i: number) => text.charCodeAt(i) & 0xff

/** The 4-byte block at i, little-endian. */
const blockAt = (text: string, i: number) => byteAt(text, i) | (byteAt(text, i + 1) << 8) | (byteAt(text, i + 2) << 16) | (byteAt(text, i + 3) << 24)

/** A block's own mixing (it does not depend on the hash so far). */
const mixK = (k: number) => {
  k = Math.imul(k, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  return Math.imul(k, 0x1b873593)
}

/** The hash after a block already mixed by mixK. */
const mixH = (h: number, mixed: number) => {
  h ^= mixed
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

const mixBlock = (h: number, k: number) => mixH(h, mixK(k))

/** A rollout's bucket, 1–100: `groupId:id` hashed with seed 0. */
export const strategyBucket = (id: string, groupId: string) => (murmur32(`${groupId}:${id}`, 0) % 100) + 1

const VARIANT_SEED = 86028157

/**
 * The state of murmur32 after a fixed prefix (such as `groupId:`): its whole 4-byte blocks
 * mixed in, and the bytes left over. A rollout hashes `groupId:id` for every request; starting
 * from the prefix's state hashes only the id, with no string built.
 */
export interface Prefix {
  h: number
  carry: number
  carried: number
  length: number
}

export function prefixOf (prefix: string, seed: number): Prefix {
  let h = seed | 0
  const blocks = prefix.length - (prefix.length & 3)
  for (let i = 0; i < blocks; i += 4) h = mixBlock(h, blockAt(prefix, i))
  let carry = 0
  for (let i = blocks; i < prefix.length; i++) carry |= byteAt(prefix, i) << ((i - blocks) * 8)
  return { h, carry, carried: prefix.length - blocks, length: prefix.length }
}

/** murmur32(prefix + rest), from the prefix's state. */
export function murmurAfter (p: Prefix, rest: string): number {
  let h = p.h
  let k = p.carry
  let n = p.carried
  const length = rest.length
  let i = 0
  while (n < 4 && i < length) k |= byteAt(rest, i++) << (8 * n++)
  if (n === 4) {
    h = mixBlock(h, k)
    const blocks = i + ((length - i) & ~3)
    for (; i < blocks; i += 4) h = mixBlock(h, blockAt(rest, i))
    k = 0
    n = 0
    for (; i < length; i++) k |= byteAt(rest, i) << (8 * n++)
  }
  if (n > 0) h ^= mixK(k)
  return finish(h ^ (p.length + length))
}

/**
 * A string prepared to be hashed after many prefixes (one request's stickiness id, hashed after
 * every rollout's group): for each number of bytes a prefix can leave over (0–3), its whole blocks
 * read and mixed once (their mixing does not depend on the hash so far), and the bytes that
 * complete the prefix's block and those left at the end.
 */
export interface Rest {
  length: number
  /** By bytes left over a: whether the rest completes the prefix's block. */
  full: Uint8Array
  /** By a: the bytes that complete the prefix's block (all of them when they do not), in place. */
  first: Int32Array
  /** By a: the following whole blocks, mixed. */
  blocks: Int32Array[]
  /** By a: the bytes after the last whole block, and how many. */
  tail: Int32Array
  tailLength: Uint8Array
}

export function prepareRest (rest: string): Rest {
  const length = rest.length
  const r: Rest = { length, full: new Uint8Array(4), first: new Int32Array(4), blocks: [], tail: new Int32Array(4), tailLength: new Uint8Array(4) }
  for (let a = 0; a < 4; a++) {
    const need = 4 - a
    let first = 0
    for (let j = 0; j < Math.min(need, length); j++) first |= byteAt(rest, j) << (8 * (a + j))
    r.first[a] = first
    const mixed: number[] = []
    if (length >= need) {
      r.full[a] = 1
      let i = need
      for (; i + 4 <= length; i += 4) mixed.push(mixK(blockAt(rest, i)))
      let tail = 0
      for (let j = i; j < length; j++) tail |= byteAt(rest, j) << (8 * (j - i))
      r.tail[a] = tail
      r.tailLength[a] = length - i
    }
    r.blocks.push(Int32Array.from(mixed))
  }
  return r
}

/** murmur32(prefix + rest), from the prefix's state and the prepared rest: murmurAfter without reading the rest again. */
export function murmurRest (p: Prefix, r: Rest): number {
  const a = p.carried
  let h = p.h
  let k: number
  let n: number
  if (r.full[a] === 1) {
    h = mixBlock(h, p.carry | r.first[a]!)
    const blocks = r.blocks[a]!
    for (let j = 0; j < blocks.length; j++) h = mixH(h, blocks[j]!)
    k = r.tail[a]!
    n = r.tailLength[a]!
  } else {
    k = p.carry | r.first[a]!
    n = a + r.length
  }
  if (n > 0) h ^= mixK(k)
  return finish(h ^ (p.length + r.length))
}

/** A rollout's bucket for a fixed group and a prepared id: 1–100. */
export const bucketRest = (group: Prefix, id: Rest) => (murmurRest(group, id) % 100) + 1

/** A rollout's bucket for a fixed group: 1–100. */
export const bucketIn = (group: Prefix, id: string) => (murmurAfter(group, id) % 100) + 1

/** The prefix of a rollout's group (`groupId:`, seed 0). */
export const rolloutGroup = (groupId: string) => prefixOf(`${groupId}:`, 0)

/** The prefix of a variant group (`groupId:`, the variant seed). */
export const variantGroup = (groupId: string) => prefixOf(`${groupId}:`, VARIANT_SEED)

/** MurmurHash3's final mix (fmix32), as an unsigned 32-bit number. */
export function finish (h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
