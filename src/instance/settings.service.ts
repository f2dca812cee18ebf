import type { Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { ApiError, badData } from '../errors.js'
import { writeChange } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { type OriginRule, originRule } from '../http/cors.js'
import { originsProblems } from './origins.js'
import { FRONTEND, INSTANCE_ID, lockSetting, MAINTENANCE, readSettings, type SettingName, writeSetting } from './settings.store.js'

/** The instance's settings as this instance last read them. */
export interface InstanceState {
  /** Maintenance mode: every write but the few listed in docs/operations.md is refused with 503. */
  maintenance: boolean
  /** The frontend API's origins as an Admin stored them (undefined: never stored). */
  storedOrigins: string[] | undefined
  instanceId: string
}

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {}

const maintenanceIn = (value: unknown) => asObject(value).enabled === true
const originsIn = (value: unknown): string[] | undefined => {
  const origins = asObject(value).frontendApiOrigins
  return Array.isArray(origins) && origins.every((o) => typeof o === 'string') ? origins : undefined
}

const stateOf = (stored: Partial<Record<SettingName, unknown>>): InstanceState => ({
  maintenance: maintenanceIn(stored[MAINTENANCE]),
  storedOrigins: originsIn(stored[FRONTEND]),
  instanceId: typeof stored[INSTANCE_ID] === 'string' ? stored[INSTANCE_ID] : '',
})

export interface InstanceSettingsOptions {
  /** FRONTEND_ALLOWED_ORIGINS: when set, the frontend API's origins, whatever is stored. */
  fixedOrigins: string[] | undefined
  /** At most one read per this many milliseconds after changes (wakes of the change feed). */
  minReadIntervalMs?: number
  /** A read this often anyway, in case the change feed was not listening. */
  pollMs?: number
  onError: (error: unknown) => void
}

/**
 * The instance's settings, held in memory so that the requests that ask them (every write asks
 * whether maintenance mode is on; every frontend API answer which origins may read it) ask
 * nothing of the database. Read at start, after a change on this instance at once, after a
 * change on another instance when the change feed wakes it (`changed()`: at most one read per
 * `minReadIntervalMs`, so that a burst of commits costs one read, not one per commit), and every
 * `pollMs` in case the feed missed one. A read that fails keeps what was read before.
 */
export class InstanceSettings implements Worker {
  #state: InstanceState = { maintenance: false, storedOrigins: undefined, instanceId: '' }
  #rule: OriginRule
  #lastRead = 0
  #timer: NodeJS.Timeout | undefined
  #poll: NodeJS.Timeout | undefined
  #reading: Promise<void> | undefined
  #again = false
  #running = false
  /** Moves on every use(): a read begun before it may have missed what it says, and is not kept. */
  #generation = 0
  readonly #minReadIntervalMs: number
  readonly #pollMs: number

  constructor (private readonly db: Database, private readonly options: InstanceSettingsOptions) {
    this.#minReadIntervalMs = options.minReadIntervalMs ?? 100
    this.#pollMs = options.pollMs ?? 10_000
    this.#rule = originRule(this.frontendOrigins)
  }

  get state (): InstanceState {
    return this.#state
  }

  /** Whether maintenance mode is on (from memory). */
  get maintenance (): boolean {
    return this.#state.maintenance
  }

  /** The origins the frontend API allows: FRONTEND_ALLOWED_ORIGINS, else as stored, else any. */
  get frontendOrigins (): string[] {
    return this.options.fixedOrigins ?? this.#state.storedOrigins ?? ['*']
  }

  /** The compiled check of frontendOrigins (made once per change). */
  get originRule (): OriginRule {
    return this.#rule
  }

  async start (): Promise<void> {
    this.#running = true
    await this.read()
    this.#schedulePoll()
  }

  stop (): void {
    this.#running = false
    clearTimeout(this.#timer)
    clearTimeout(this.#poll)
    this.#timer = undefined
  }

  /** Something committed (on any instance): read again soon, at most once per minReadIntervalMs. */
  changed (): void {
    if (!this.#running || this.#timer !== undefined) return
    const delay = Math.max(0, this.#lastRead + this.#minReadIntervalMs - Date.now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.read().catch(() => {})
    }, delay)
    this.#timer.unref()
  }

  /** Reads the settings now; a read asked for while one is under way runs once more after it. */
  read (): Promise<void> {
    if (this.#reading) {
      this.#again = true
      return this.#reading
    }
    this.#lastRead = Date.now()
    const generation = this.#generation
    this.#reading = readSettings(this.db).then(
      (stored) => {
        if (generation === this.#generation) this.#use(stateOf(stored))
        else this.#again = true
      },
      (error) => this.options.onError(error)
    ).finally(() => {
      this.#reading = undefined
      if (this.#again) {
        this.#again = false
        this.read().catch(() => {})
      }
    })
    return this.#reading
  }

  /** What this instance committed itself: used at once. */
  use (change: Partial<InstanceState>): void {
    this.#generation++
    this.#use({ ...this.#state, ...change })
  }

  #use (state: InstanceState): void {
    const originsChanged = JSON.stringify(state.storedOrigins) !== JSON.stringify(this.#state.storedOrigins)
    this.#state = state
    if (originsChanged) this.#rule = originRule(this.frontendOrigins)
  }

  #schedulePoll (): void {
    if (!this.#running) return
    this.#poll = setTimeout(() => {
      this.read().finally(() => this.#schedulePoll())
    }, this.#pollMs)
    this.#poll.unref()
  }
}

/** Maintenance mode as stored (Unleash's `{enabled}`). */
export async function maintenance (db: Database) {
  return { enabled: maintenanceIn((await readSettings(db))[MAINTENANCE]) }
}

/**
 * Turns maintenance mode on or off (setting-created or setting-updated with
 * `{id: "maintenance.mode", enabled}`, as Unleash); the same value again changes nothing and
 * records nothing. This instance holds it at once, the others within the change feed's delay.
 */
export async function setMaintenance (db: Database, settings: InstanceSettings, enabled: boolean, author: Author): Promise<void> {
  await writeChange(db, async ({ trx, record }) => {
    const found = await lockSetting(trx, MAINTENANCE)
    const before = maintenanceIn(found)
    if (found !== undefined && before === enabled) return
    await writeSetting(trx, MAINTENANCE, { enabled })
    const data = toJsonText({ id: MAINTENANCE, enabled })
    if (found === undefined) record({ type: 'setting-created', createdBy: author, data })
    else record({ type: 'setting-updated', createdBy: author, data, preData: toJsonText({ id: MAINTENANCE, enabled: before }) })
  })
  settings.use({ maintenance: enabled })
}

/**
 * Sets the origins whose pages may call the frontend API and OFREP (setting-created or
 * setting-updated with `{id: "unleash.frontend", frontendApiOrigins}`): 409 while
 * FRONTEND_ALLOWED_ORIGINS fixes them, 400 naming each origin that is not one. The same list
 * again changes nothing.
 */
export async function setFrontendOrigins (db: Database, settings: InstanceSettings, fixed: boolean, origins: string[], author: Author): Promise<void> {
  if (fixed) {
    throw new ApiError('SettingLockedError', 'The frontend API\'s origins are set by FRONTEND_ALLOWED_ORIGINS: change that variable instead', [{ path: '/body/frontendApiOrigins', message: 'fixed by FRONTEND_ALLOWED_ORIGINS' }])
  }
  const problems = originsProblems(origins)
  if (problems.length > 0) throw badData(problems[0]!.message, problems)
  const wanted = [...new Set(origins)]
  await writeChange(db, async ({ trx, record }) => {
    const found = await lockSetting(trx, FRONTEND)
    const before = originsIn(found)
    if (before !== undefined && JSON.stringify(before) === JSON.stringify(wanted)) return
    await writeSetting(trx, FRONTEND, { ...asObject(found), frontendApiOrigins: wanted })
    const data = toJsonText({ id: FRONTEND, frontendApiOrigins: wanted })
    if (found === undefined) record({ type: 'setting-created', createdBy: author, data })
    else record({ type: 'setting-updated', createdBy: author, data, preData: toJsonText({ id: FRONTEND, frontendApiOrigins: before ?? null }) })
  })
  settings.use({ storedOrigins: wanted })
}
