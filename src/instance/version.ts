import packageJson from '../../package.json' with { type: 'json' }

/** This server's version (package.json), as ui-config and the statistics answer it. */
export const SERVER_VERSION: string = packageJson.version
