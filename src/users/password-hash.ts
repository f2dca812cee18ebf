import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { ApiError } from '../errors.js'

const R = 8
const P = 1
const KEY_BYTES = 32
const SALT_BYTES = 16

function derive (password: string, salt: Buffer, ln: number): Promise<Buffer> {
  const N = 2 ** ln
  return new Promise((resolve, reject) => {
    // maxmem above scrypt's need (128 × N × r bytes), which Node's 32 MiB default is not.
    scrypt(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: 256 * N * R }, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '')

/**
 * Password hashing with scrypt (Node's own, run on libuv's thread pool, so the event loop is
 * never blocked), stored in the PHC string format `$scrypt$ln=17,r=8,p=1$<salt>$<hash>`.
 *
 * Each hash takes 128 × 2^ln × 8 bytes of memory (128 MiB at ln=17), so at most `concurrency`
 * run at once and at most `queueLimit` wait; more is a 429 at once. An unknown user, or one
 * without a password, is checked against a hash made at start with the same parameters: the
 * answer costs the same time as a wrong password.
 */
export class PasswordHasher {
  #running = 0
  readonly #waiting: (() => void)[] = []
  #dummy: Promise<string> | undefined

  constructor (
    readonly cost: number,
    private readonly concurrency = 2,
    private readonly queueLimit = 64
  ) {}

  async #slot<T> (work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queueLimit) {
        throw new ApiError('TooManyRequestsError', 'Too many password checks at once; try again in a moment', undefined, { 'retry-after': '1' })
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    } else {
      this.#running++
    }
    try {
      return await work()
    } finally {
      const next = this.#waiting.shift()
      if (next) next()
      else this.#running--
    }
  }

  hash (password: string): Promise<string> {
    return this.#slot(async () => {
      const salt = randomBytes(SALT_BYTES)
      const key = await derive(password, salt, this.cost)
      return `$scrypt$ln=${this.cost},r=${R},p=${P}$${b64(salt)}$${b64(key)}`
    })
  }

  /**
   * Whether the password matches the stored hash (null: no user, or no password; then a
   * stand-in hash is checked, and the answer is false). `rehash` says the stored hash has other
   * parameters than the current ones.
   */
  async verify (password: string, stored: string | null): Promise<{ ok: boolean; rehash: boolean }> {
    const parsed = stored === null ? undefined : PHC.exec(stored)
    const target = parsed ?? PHC.exec(await this.#standIn())!
    const [, ln, r, p, salt, expected] = target
    if (Number(r) !== R || Number(p) !== P) return { ok: false, rehash: false }
    const key = await this.#slot(() => derive(password, Buffer.from(salt!, 'base64'), Number(ln)))
    const want = Buffer.from(expected!, 'base64')
    const ok = parsed !== undefined && want.length === key.length && timingSafeEqual(want, key)
    return { ok, rehash: ok && Number(ln) !== this.cost }
  }

  /** Makes the stand-in hash now (at start), so that the first unknown name costs no more than later ones. */
  async warm (): Promise<void> {
    await this.#standIn()
  }

  #standIn (): Promise<string> {
    this.#dummy ??= this.hash(randomBytes(24).toString('base64url'))
    return this.#dummy
  }
}
