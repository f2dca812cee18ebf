import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { EnvSchema } from '../../src/config.js'

const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'))
const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')
const known = Object.keys(EnvSchema.properties)

describe('docker-compose.yml', () => {
  it('passes the api only variables that the config schema knows', () => {
    const names = Object.keys(compose.services.api.environment)
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) expect(known).toContain(name)
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'INIT_ADMIN_API_TOKENS']))
  })

  it('starts the api only once PostgreSQL is healthy', () => {
    expect(compose.services.api.depends_on.postgres.condition).toBe('service_healthy')
    expect(compose.services.postgres.healthcheck.test.join(' ')).toContain('pg_isready')
  })

  it('points DATABASE_URL at the postgres service with its user and database', () => {
    const url = new URL(
      compose.services.api.environment.DATABASE_URL.replace(/\$\{POSTGRES_PASSWORD:-flags\}/, 'pw')
    )
    const pg = compose.services.postgres.environment
    expect(url.hostname).toBe('postgres')
    expect(url.username).toBe(pg.POSTGRES_USER)
    expect(url.pathname).toBe(`/${pg.POSTGRES_DB}`)
  })
})

describe('Dockerfile', () => {
  it('sets only known variables, listens on all interfaces and runs as a non-root user', () => {
    const env = [...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=\S+/gm)].map((m) => m[1])
    for (const name of env.filter((n) => n !== 'NODE_ENV')) expect(known).toContain(name)
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/)
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/npm ci --omit=dev/)
    expect(dockerfile).toMatch(/CMD \["node", "dist\/server\.js"\]/)
  })
})
