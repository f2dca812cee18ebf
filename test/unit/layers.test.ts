/**
 * The shape of the house, read from the code's own imports: the rules of docs/architecture.md
 * that a compiler does not check. A new file that breaks one fails here, naming the import.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const SRC = join(ROOT, 'src')

interface Import {
  from: string
  /** The file imported (relative to the repository), or the package name. */
  to: string
  typeOnly: boolean
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })

const IMPORT = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm

function importsOf (file: string): Import[] {
  const text = readFileSync(file, 'utf8')
  const from = relative(ROOT, file)
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = m[2]!
    const to = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))) : spec
    return { from, to, typeOnly: m[1] !== undefined }
  })
}

const files = sourceFiles(SRC)
const imports = files.flatMap(importsOf)
const local = imports.filter((i) => i.to.startsWith('src/'))

/** A file's room: its folder under src/, or the file itself at the top of src/. */
const roomOf = (path: string) => {
  const parts = path.split('/')
  return parts.length > 2 ? `src/${parts[1]}/` : path
}
const role = (path: string) => /\.(routes|service|store|schemas)\.ts$/.exec(path)?.[1]
const show = (list: Import[]) => list.map((i) => `${i.from} -> ${i.to}`)

/** The cycles of a directed graph (one path per strongly connected component with more than one node). */
function cycles (edges: [string, string][]): string[][] {
  const next = new Map<string, string[]>()
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b])
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (node: string) => {
    state.set(node, 'open')
    stack.push(node)
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') found.push([...stack.slice(stack.indexOf(to)), to])
      else if (!state.has(to)) visit(to)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of next.keys()) if (!state.has(node)) visit(node)
  return found
}

/** The floors of docs/architecture.md: its block after "The folders stand in floors", a line a floor, top first. */
function floorsOfArchitecture (): string[][] {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  const block = /The folders stand in floors[\s\S]*?```\n([\s\S]*?)```/.exec(text)?.[1] ?? ''
  // A line names its rooms first (words ending in / or .ts), then says what they hold.
  return block.split('\n').filter((line) => line.trim() !== '').map((line) => {
    const words = line.trim().split(/\s+/)
    const end = words.findIndex((word) => !/^[\w.-]+(\/|\.ts)$/.test(word))
    return end === -1 ? words : words.slice(0, end)
  })
}

describe('the layers (docs/architecture.md)', () => {
  it('reads the whole of src/ (the rules below cannot pass by reading nothing)', () => {
    expect(files.length).toBeGreaterThan(80)
    expect(local.length).toBeGreaterThan(300)
    expect(local.some((i) => i.from === 'src/app.ts' && i.to === 'src/catalog/catalog.routes.ts')).toBe(true)
  })

  it('a store imports no service and no route', () => {
    expect(show(local.filter((i) => role(i.from) === 'store' && (role(i.to) === 'service' || role(i.to) === 'routes')))).toEqual([])
  })

  it('a route imports no store: it calls services, and takes names and types from schemas', () => {
    expect(show(local.filter((i) => role(i.from) === 'routes' && role(i.to) === 'store'))).toEqual([])
  })

  it('only app.ts registers routes: no other file imports a routes file', () => {
    expect(show(local.filter((i) => role(i.to) === 'routes' && i.from !== 'src/app.ts'))).toEqual([])
  })

  it('a service never sees a request or a reply', () => {
    const offending = files
      .filter((f) => role(f) === 'service')
      .filter((f) => /\bFastify(Request|Reply)\b/.test(readFileSync(f, 'utf8')))
    expect(offending.map((f) => relative(ROOT, f))).toEqual([])
  })

  it('pure rules import neither Fastify nor Kysely', () => {
    const pure = [
      'src/variants/variants.ts',
      'src/variants/weights.ts',
      'src/variants/json-patch.ts',
      'src/lifecycle/stages.ts',
      'src/features/missing.ts',
      'src/constraints/constraint-rules.ts',
      'src/strategies/strategy-rules.ts',
      'src/http/etag.ts',
      'src/access/scope.ts',
      'src/evaluation/context.ts',
      'src/evaluation/constraints.ts',
      'src/evaluation/strategies.ts',
      'src/evaluation/variants.ts',
      'src/evaluation/compile.ts',
      'src/evaluation/murmur.ts',
      'src/usage/batch.ts',
      'src/background/worker.ts',
      'src/background/background.ts',
      'src/frontend/engine.ts',
      'src/frontend/answer-cache.ts',
      'src/frontend/pooled-sending.ts',
      'src/change-requests/change-rules.ts',
    ]
    expect(show(imports.filter((i) => pure.includes(i.from) && /^(fastify|kysely|pg)$|^@fastify\//.test(i.to)))).toEqual([])
  })

  it('the vocabulary (src/vocabulary/) imports nothing: src/ and web/ both take it as it is', () => {
    expect(files.some((f) => relative(ROOT, f).startsWith('src/vocabulary/'))).toBe(true)
    expect(show(imports.filter((i) => i.from.startsWith('src/vocabulary/')))).toEqual([])
  })

  it('no file imports itself through others (no import cycles between files)', () => {
    expect(cycles(local.map((i) => [i.from, i.to]))).toEqual([])
  })

  it('the rooms stand in an order: no import runs back up (no cycles between folders)', () => {
    const edges = local
      .map((i): [string, string] => [roomOf(i.from), roomOf(i.to)])
      .filter(([a, b]) => a !== b)
    expect(cycles(edges)).toEqual([])
  })

  it('docs/architecture.md names every room of src/ on a floor, and no import runs up a floor', () => {
    const floors = floorsOfArchitecture()
    const floorOf = new Map(floors.flatMap((rooms, index) => rooms.map((room): [string, number] => [`src/${room}`, index])))
    const rooms = [...new Set(files.map((f) => roomOf(relative(ROOT, f))))].sort()
    expect(rooms.filter((room) => !floorOf.has(room))).toEqual([])
    expect([...floorOf.keys()].filter((room) => !rooms.includes(room))).toEqual([])
    const upward = local
      .map((i): [string, string] => [roomOf(i.from), roomOf(i.to)])
      .filter(([a, b]) => a !== b && floorOf.get(a)! > floorOf.get(b)!)
      .map(([a, b]) => `${a} -> ${b}`)
    expect([...new Set(upward)]).toEqual([])
  })
})
