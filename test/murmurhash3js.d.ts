/** The reference MurmurHash3 implementation the Unleash Node SDK uses (no types of its own). */
declare module 'murmurhash3js' {
  const murmurHash3: { x86: { hash32: (key: string, seed?: number) => number } }
  export default murmurHash3
}
