/**
 * The docs, kept true where a machine can check them: the README stays short enough to read in
 * five minutes (and the benchmark's README to one run), every relative link lands on a file and
 * heading that exist, every setting is documented with its real default (and nothing documented
 * that does not exist), every npm script the docs tell you to run is in package.json, and
 * docs/testing.md names every folder of tests.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EnvSchema } from '../../src/config.js'

const ROOT = resolve(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

const README = 'README.md'
const CONFIGURATION = 'docs/configuration.md'
const BENCH_README = 'bench/README.md'
const MAX_BENCH_README_WORDS = 1500
const TESTING = 'docs/testing.md'
const DOCUMENTS = [
  README,
  BENCH_README,
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`),
]
const MAX_README_WORDS = 2000

const wordsOf = (path: string) => read(path).split(/\s+/).filter((w) => w.length > 0).length

/** A folder of tests and every folder under it, as `test/unit/` names them. */
const foldersUnder = (dir: string): string[] => [
  `${dir}/`,
  ...readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => foldersUnder(`${dir}/${e.name}`)),
]

/** The lines of a Markdown text, each marked as inside a fenced code block or not. */
function lines (text: string): { line: string, fenced: boolean }[] {
  let fence: string | undefined
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === undefined ? marker : undefined
      return { line, fenced: true }
    }
    return { line, fenced: fence !== undefined }
  })
}

const INLINE_CODE = /(`+)(.+?)\1/g
const prose = (text: string) => lines(text).filter((l) => !l.fenced).map((l) => l.line)

/** The anchor GitHub gives a heading: its text, lower-case, punctuation dropped, spaces as hyphens. */
function slug (heading: string): string {
  return heading
    .replace(INLINE_CODE, '$2')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,3}([^*_]+)[*_]{1,3}/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

function anchorsOf (path: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of prose(read(path))) {
    const heading = /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slug(heading)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Link targets outside code: `[text](target)` and `![alt](target)`, with or without a title. */
function linksOf (path: string): string[] {
  return prose(read(path)).flatMap((line) =>
    [...line.replace(INLINE_CODE, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!)
  )
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

/** Why a relative link is broken, or undefined when it lands on a file (and heading) that exist. */
function brokenLink (from: string, target: string): string | undefined {
  const [file = '', anchor] = target.split('#') as [string, string | undefined]
  const path = file === '' ? from : relative(ROOT, resolve(dirname(join(ROOT, from)), decodeURIComponent(file)))
  if (path.startsWith('..') || !existsSync(join(ROOT, path))) return `${from}: ${target} (no file ${path})`
  if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) {
    return `${from}: ${target} (no heading #${anchor} in ${path})`
  }
  return undefined
}

interface Table { header: string[], rows: string[][] }

const cells = (line: string) =>
  line.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((c) => c.trim())

/** The pipe tables of a Markdown text, outside code. */
function tablesOf (text: string): Table[] {
  const all = prose(text)
  const tables: Table[] = []
  for (let i = 0; i + 1 < all.length; i++) {
    if (!all[i]!.trim().startsWith('|') || !/^\s*\|?[\s:|-]+\|?\s*$/.test(all[i + 1]!) || !all[i + 1]!.includes('-')) continue
    const table: Table = { header: cells(all[i]!), rows: [] }
    for (i += 2; i < all.length && all[i]!.trim().startsWith('|'); i++) table.rows.push(cells(all[i]!))
    tables.push(table)
  }
  return tables
}

interface Setting { name: string, defaultCell: string | undefined, where: string }

/** Rows of tables whose first column is "Variable" and whose first cell is one `NAME`. */
function documentedSettings (path: string): Setting[] {
  return tablesOf(read(path))
    .filter((t) => t.header[0] === 'Variable')
    .flatMap((t) => {
      const defaultColumn = t.header.indexOf('Default')
      return t.rows.map((row) => {
        const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(row[0] ?? '')?.[1]
        return { name: name ?? `(not one variable: ${row[0]})`, defaultCell: defaultColumn < 0 ? undefined : row[defaultColumn], where: path }
      })
    })
}

const schemaVariables = Object.keys(EnvSchema.properties)
const schemaDefault = (name: string): unknown =>
  (EnvSchema.properties as Record<string, { default?: unknown }>)[name]?.default

/** npm's own commands that the docs may name (the rest must be scripts of package.json). */
const NPM_COMMANDS = new Set(['install', 'i', 'ci', 'exec', 'init', 'ls', 'update', 'outdated'])

/** `npm x` and `npm run x` as the docs write them in code (prose mentions "npm" as a registry). */
function npmCommandsOf (path: string): { run: boolean, name: string }[] {
  const code = lines(read(path)).flatMap(({ line, fenced }) =>
    fenced ? [line] : [...line.matchAll(INLINE_CODE)].map((m) => m[2]!)
  )
  return code.flatMap((text) =>
    [...text.matchAll(/\bnpm\s+(run(?:-script)?\s+)?([a-z][\w:.-]*)/g)].map((m) => ({ run: m[1] !== undefined, name: m[2]! }))
  )
}

describe('the docs', () => {
  it('read the files they check (the rules below cannot pass by reading nothing)', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining([README, CONFIGURATION, 'docs/README.md', 'docs/api.md', 'docs/operations.md', 'docs/testing.md']))
    expect(linksOf(README).length).toBeGreaterThan(5)
    expect(documentedSettings(CONFIGURATION).length).toBeGreaterThan(10)
    expect(npmCommandsOf(README).length).toBeGreaterThan(2)
  })

  it(`README.md has at most ${MAX_README_WORDS} words (as wc -w counts them)`, () => {
    expect(wordsOf(README)).toBeLessThanOrEqual(MAX_README_WORDS)
  })

  it(`bench/README.md (one run and how to read it) has at most ${MAX_BENCH_README_WORDS} words`, () => {
    expect(wordsOf(BENCH_README)).toBeLessThanOrEqual(MAX_BENCH_README_WORDS)
  })

  it('docs/testing.md names every folder of tests under test/integration/ and test/unit/, and no folder that is not there', () => {
    const folders = [...foldersUnder('test/integration'), ...foldersUnder('test/unit')]
    expect(folders.length).toBeGreaterThan(10)
    const named = new Set([...read(TESTING).matchAll(/`(test\/(?:integration|unit)(?:\/[\w.-]+)*\/)`/g)].map((m) => m[1]!))
    expect(folders.filter((folder) => !named.has(folder))).toEqual([])
    expect([...named].filter((folder) => !folders.includes(folder))).toEqual([])
  })

  it('every relative link lands on a file that exists, and on a heading of it that exists', () => {
    const broken = DOCUMENTS.flatMap((path) =>
      linksOf(path).filter((t) => !isExternal(t)).map((t) => brokenLink(path, t)).filter((b) => b !== undefined)
    )
    expect(broken).toEqual([])
  })

  it('the README links to every document of docs/ and to the benchmark', () => {
    const targets = new Set(linksOf(README).map((t) => t.split('#')[0]))
    const missing = DOCUMENTS.filter((path) => path !== README && !targets.has(path))
    expect(missing).toEqual([])
  })

  it('docs/configuration.md documents every variable of EnvSchema, once, and nothing else', () => {
    const documented = documentedSettings(CONFIGURATION).map((s) => s.name)
    expect([...documented].sort()).toEqual([...schemaVariables].sort())
    const named = prose(read(CONFIGURATION)).flatMap((line) => [...line.matchAll(INLINE_CODE)].map((m) => m[2]!))
      .filter((code) => /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(code))
    expect(named.filter((name) => !schemaVariables.includes(name))).toEqual([])
  })

  it('every variable a settings table names exists, with the default EnvSchema gives it', () => {
    const wrong = [README, CONFIGURATION].flatMap((path) => documentedSettings(path)).flatMap(({ name, defaultCell, where }) => {
      if (!schemaVariables.includes(name)) return [`${where}: ${name} is not a variable of EnvSchema`]
      const value = schemaDefault(name)
      if (defaultCell === undefined) return [`${where}: ${name} has no Default column`]
      if (value === undefined || value === '') {
        return /^(unset|none|`[A-Z_]+`.*)$/.test(defaultCell) ? [] : [`${where}: ${name} has no default, but the docs say ${defaultCell}`]
      }
      return defaultCell.includes(`\`${String(value)}\``) ? [] : [`${where}: ${name} defaults to ${String(value)}, but the docs say ${defaultCell}`]
    })
    expect(wrong).toEqual([])
  })

  it('every npm script the docs tell you to run exists in package.json', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>)
    const unknown = DOCUMENTS.flatMap((path) =>
      npmCommandsOf(path)
        .filter(({ run, name }) => (run || !NPM_COMMANDS.has(name)) && !scripts.includes(name))
        .map(({ run, name }) => `${path}: npm ${run ? 'run ' : ''}${name}`)
    )
    expect(unknown).toEqual([])
  })
})
