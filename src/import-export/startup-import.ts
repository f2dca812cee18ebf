import { readFile } from 'node:fs/promises'
import type { TokenScope } from '../access/scope.js'
import { type Config, ConfigError } from '../config.js'
import type { Database } from '../db/types.js'
import { ApiError } from '../errors.js'
import { checkJsonValue } from '../http/json-body.js'
import { ajvProblems, strictAjv } from '../validation.js'
import { ImportData } from './import-export.schemas.js'
import { importRules } from './import-elements.js'
import { importFeatures } from './import.service.js'

/** Who the start-up import's events name. */
const STARTUP: TokenScope = { name: 'import-file', type: 'admin', projects: ['*'], environments: ['*'] }

const checkData = strictAjv.compile(ImportData)

/** A pointer into the request (`/body/data/features/3/name`) as a pointer into the file (`/features/3/name`). */
const inFile = (text: string) => text.replaceAll('/body/data', '')

/**
 * Imports IMPORT_FILE (an export, this server's or Unleash's) into IMPORT_PROJECT and
 * IMPORT_ENVIRONMENT, as the import route does, all or nothing. With create-if-missing,
 * features that exist are left as they are. A file that cannot be read or imported stops the
 * start with a ConfigError whose one line names the file and the element (`/featureStrategies/19`);
 * then nothing is applied. A file that names no feature is valid and changes nothing.
 */
export async function importAtStartup (db: Database, config: Config) {
  const wanted = config.startupImport
  if (!wanted) return undefined
  const fail = (why: string) => new ConfigError(`IMPORT_FILE ${wanted.file} was not imported, nothing was applied: ${why}`)
  let data: unknown
  try {
    data = JSON.parse(await readFile(wanted.file, 'utf8'))
  } catch (error) {
    throw fail(error instanceof SyntaxError ? `it is not JSON (${error.message})` : `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
  try {
    checkJsonValue(data, '')
    if (!checkData(data)) {
      const [problem] = ajvProblems(checkData.errors ?? [])
      throw fail(problem!.describe(problem!.at ?? ''))
    }
    return await importFeatures(db, { project: wanted.project, environment: wanted.environment, data }, STARTUP, { name: STARTUP.name }, importRules(config), wanted.mode)
  } catch (error) {
    if (error instanceof ApiError) throw fail(inFile(error.details.find((d) => d.path !== undefined)?.message ?? error.message))
    throw error
  }
}
