/**
 * Which SDK versions are outdated: the oldest version of each official SDK Unleash 8.2 still
 * considers current (an SDK reports `name:version`, e.g. `unleash-client-node:5.3.2`). A pure
 * rule: no I/O.
 */
const MINIMUM_VERSIONS: Record<string, string> = {
  'unleash-client-node': '5.3.2',
  'unleash-client-nextjs': '1.6.2',
  'unleash-client-java': '9.2.0',
  'unleash-client-go': '4.1.0',
  'unleash-client-python': '5.11.0',
  'unleash-client-ruby': '5.0.0',
  'unleash-client-dotnet': '4.1.3',
  'unleash-client-php': '2.3.0',
  // The names the SDKs report since they were renamed.
  'unleash-node-sdk': '6.6.0',
  'unleash-nextjs-sdk': '1.6.2',
  'unleash-java-sdk': '11.0.2',
  'unleash-go-sdk': '5.0.3',
  'unleash-python-sdk': '6.3.0',
  'unleash-ruby-sdk': '6.3.1',
  'unleash-dotnet-sdk': '5.3.0',
  'unleash-php-sdk': '2.9.1',
}

const SEMVER = /^[=v]?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/

/** A version's numbers and whether it is a pre-release; undefined when it is not semantic versioning. */
function parse (version: string) {
  const m = SEMVER.exec(version.trim())
  return m ? { core: [Number(m[1]), Number(m[2]), Number(m[3])], prerelease: m[4] !== undefined } : undefined
}

/** Whether `version` comes before `minimum` (a release): a lower core, or the same core as a pre-release. */
function before (version: string, minimum: string): boolean {
  const v = parse(version)
  const m = parse(minimum)
  if (!v || !m) return false
  for (let i = 0; i < 3; i++) if (v.core[i] !== m.core[i]) return v.core[i]! < m.core[i]!
  return v.prerelease && !m.prerelease
}

/** Whether an SDK's reported `name:version` is older than the oldest current version of that SDK. */
export function isOutdatedSdk (sdkVersion: string | null | undefined): boolean {
  if (!sdkVersion) return false
  const [name = '', version = ''] = sdkVersion.split(':')
  const minimum = MINIMUM_VERSIONS[name]
  return minimum !== undefined && before(version, minimum)
}

/** The outdated ones of these SDK versions, each once, in the order given. */
export const outdatedSdks = (sdkVersions: readonly string[]) => [...new Set(sdkVersions)].filter(isOutdatedSdk)
