import Mustache from 'mustache'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../../src/events/events.schemas.js'
import { outcomeOf, retryDelay } from '../../src/webhooks/dispatcher.service.js'
import { RENDER_LIMITS, renderBody, RenderTooCostly } from '../../src/webhooks/payload.js'
import { generateSigningSecret, signatures } from '../../src/webhooks/signing.js'
import { checkUrlForm, refusedAddress } from '../../src/webhooks/ssrf.js'

describe('refusedAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.1.2.3', 'a private address (RFC 1918)'],
    ['172.16.0.1', 'a private address (RFC 1918)'],
    ['192.168.1.1', 'a private address (RFC 1918)'],
    ['fc00::1', 'a private address (unique local, fc00::/7)'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['0.0.0.0', 'the unspecified address'],
    ['::', 'the unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:10.0.0.1', 'a private address (RFC 1918)'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['100.64.0.1', 'a shared address (carrier-grade NAT, 100.64.0.0/10)'],
    ['2002:7f00:1::1', 'a reserved address (6to4)'],
  ])('%s is %s', (address, rule) => {
    expect(refusedAddress(address, [])).toMatch(new RegExp(`is ${rule.replace(/[()./]/g, '\\$&')}$`))
  })

  it('lets public addresses through, and refused ones inside an allowed network', () => {
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8']) expect(refusedAddress(address, [])).toBeUndefined()
    expect(refusedAddress('127.0.0.1', ['127.0.0.0/8'])).toBeUndefined()
    expect(refusedAddress('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBeUndefined()
    expect(refusedAddress('10.0.0.1', ['127.0.0.0/8'])).toBeDefined()
    expect(refusedAddress('::1', ['127.0.0.0/8'])).toBeDefined()
  })
})

describe('checkUrlForm', () => {
  it('refuses other schemes and credentials', () => {
    expect(() => checkUrlForm('file:///etc/passwd')).toThrow('must use http or https, not file')
    expect(() => checkUrlForm('http://u:p@example.com/')).toThrow(/must not hold credentials/)
    expect(() => checkUrlForm('not a url')).toThrow('is not an absolute URL')
    expect(checkUrlForm('https://example.com/x').hostname).toBe('example.com')
  })
})

describe('signatures', () => {
  it('verify with the standardwebhooks package, one per secret', () => {
    const [a, b] = [generateSigningSecret(), generateSigningSecret()]
    const timestamp = Math.floor(Date.now() / 1000)
    const body = '{"id":1,"type":"feature-created"}'
    const header = signatures([a, b], 'msg_1', timestamp, body)
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header }
    expect(header.split(' ')).toHaveLength(2)
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow()
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow()
  })
})

describe('retries', () => {
  it('double from the base, with jitter between half and all of the delay, at most an hour', () => {
    expect(retryDelay(1, 1000, () => 0)).toBe(500)
    expect(retryDelay(1, 1000, () => 1)).toBe(1000)
    expect(retryDelay(4, 1000, () => 1)).toBe(8000)
    expect(retryDelay(30, 1000, () => 1)).toBe(3_600_000)
  })

  it('a 2xx is delivered; a failure is retried until WEBHOOK_MAX_ATTEMPTS, then dead', () => {
    const config = { maxAttempts: 3, retryBaseMs: 100 }
    expect(outcomeOf({ status: 204 }, 3, config)).toEqual({ state: 'delivered' })
    expect(outcomeOf({ status: 500, error: 'answered 500' }, 2, config)).toMatchObject({ state: 'pending' })
    expect(outcomeOf({ error: 'ECONNREFUSED' }, 3, config)).toEqual({ state: 'dead' })
  })
})

describe('renderBody', () => {
  const event = (data: unknown): StoredEvent => ({
    id: 7,
    type: 'feature-strategy-add',
    createdAt: new Date('2026-11-28T12:00:00.000Z'),
    createdBy: 'admin',
    createdByUserId: null,
    project: 'default',
    featureName: 'f',
    environment: 'development',
    data,
  })
  const values = Array.from({ length: 250 }, (_, i) => `user-${i}`)
  const strategy = event({ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values }] })
  const timed = (template: string, e = strategy) => {
    const started = performance.now()
    try {
      renderBody(e, template)
      return { ms: performance.now() - started, error: undefined }
    } catch (error) {
      return { ms: performance.now() - started, error: error as Error }
    }
  }

  it('renders as Mustache does, within the limits', () => {
    const variants = Array.from({ length: 1000 }, (_, i) => ({ name: `v${i}`, weight: 1, payload: { type: 'string', value: '<&>' } }))
    const templates = [
      '{"text": "{{event.createdBy}}: {{event.type}} on {{event.featureName}}", "event": {{{eventJson}}}}',
      '{{#event.data.constraints}}{{contextName}} {{operator}}: {{#values}}{{.}},{{/values}}{{/event.data.constraints}}',
      '{{#event.data.variants}}{{name}}={{payload.value}}&{{{payload.value}}};{{/event.data.variants}}{{^event.data.none}}none{{/event.data.none}}',
      '{{=<% %>=}}<% event.id %> {{not a tag}}',
    ]
    for (const e of [strategy, event({ variants })]) {
      for (const template of templates) {
        const view = { event: JSON.parse(JSON.stringify(e)), eventJson: JSON.stringify(e) }
        expect(renderBody(e, template)).toBe(Mustache.render(template, view))
      }
    }
    expect(renderBody(strategy, null)).toBe(JSON.stringify(strategy))
  })

  const TOO_MANY_STEPS = `rendering takes more than ${RENDER_LIMITS.steps} steps (sections repeated inside sections over long lists)`

  it('three nested sections over a 250-value list stop at the step limit, having rendered a fraction of them', () => {
    const { ms, error } = timed('{{#event.data.constraints}}{{#values}}{{#values}}{{#values}}{{/values}}{{/values}}{{/values}}{{/event.data.constraints}}')
    expect(error).toBeInstanceOf(RenderTooCostly)
    expect(error!.message).toBe(TOO_MANY_STEPS)
    // 15.6 million renderings took seconds; the 100,000 steps some tens of ms (less on a quiet machine).
    expect(ms).toBeLessThan(1000)
  })

  it('a section repeating a large text stops at the character limit, before holding it all', () => {
    const large = event({ note: 'x'.repeat(100_000), values })
    const { error } = timed('{{#event.data.values}}{{{eventJson}}}{{/event.data.values}}', large)
    expect(error?.message).toBe(`rendering produces more than ${RENDER_LIMITS.characters} characters`)
  })

  it('a long name looked up through nested sections costs steps by its length: stopped as early', () => {
    // Within the template's 16384 characters: a name of 7,001 parts, split again in every
    // section's context around it, for each of 62,500 items (about 90 µs each: 6 s in all).
    const name = `${'n.'.repeat(7000)}n`
    const { ms, error } = timed(`{{#event.data.constraints}}{{#values}}{{#values}}{{${name}}}{{/values}}{{/values}}{{/event.data.constraints}}`)
    expect(error?.message).toBe(TOO_MANY_STEPS)
    expect(ms).toBeLessThan(1000)
  })
})
