/**
 * Change requests as people meet them, in a real browser: an Admin guards production, an author
 * switches a flag on there (which proposes instead of writing), sends the request to review,
 * another person approves it, the author applies it, and only then is the flag on. Then what does
 * not go to plan: a reviewer rejects; a comment and an approval land close together (the screen's
 * last word is the approval); an admin token edits the strategy a request changes, and
 * Apply says why it cannot; scheduled requests that cannot apply at their time (the flag
 * archived, a segment deleted) are not applied, and the review screen says so. axe-core on every screen they pass; the API is the judge of
 * what is stored.
 */
import { describe, expect, it } from 'vitest'
import { createFeature } from '../helpers/app.js'
import { apiOf, expectAccessible, expectClean, openPage, useBrowserApp } from './browser.js'

const ui = useBrowserApp()

const api = apiOf(() => ui.server)
const productionOf = async (name: string) => (await api('GET', `/api/admin/projects/default/features/${name}`)).body.environments.find((e: any) => e.name === 'production')

describe('four eyes on production', () => {
  it('an Admin turns change requests on for production; an author\'s switch proposes, another person approves, the author applies, and the flag is on', async () => {
    const name = await createFeature(ui.server.t.app)

    // An Admin turns change requests on in production on the project's change requests screen.
    const admin = await openPage(ui.browser, ui.server, { as: { role: 'Admin' } })
    await admin.page.goto(`${ui.server.origin}/projects/default`)
    await admin.page.getByRole('link', { name: 'Change requests' }).click()
    await admin.page.getByRole('heading', { level: 1, name: 'Change requests' }).waitFor()
    await admin.page.getByRole('switch', { name: 'Change requests in production' }).click()
    await admin.page.getByRole('status').filter({ hasText: 'Change requests on in production' }).waitFor()
    await expectAccessible(admin.page, 'change requests settings')
    expect((await api('GET', '/api/admin/projects/default/change-requests/config')).body)
      .toContainEqual(expect.objectContaining({ environment: 'production', changeRequestEnabled: true, requiredApprovals: 1 }))
    expectClean(admin)
    await admin.context.close()

    // The author switches the flag on in production: the page says the change goes to a request.
    const author = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = author
    await page.goto(`${ui.server.origin}/projects/default/features/${name}`)
    await page.getByText('Changes in production need a change request').waitFor()
    await expectAccessible(page, 'flag page in a guarded environment')
    await page.getByRole('switch', { name: 'Enabled in production' }).click()
    await page.getByRole('status').filter({ hasText: 'added to your change request in production' }).waitFor()
    // Nothing changed yet: the flag stays off, and the switch shows what is stored.
    expect((await productionOf(name)).enabled).toBe(false)
    expect(await page.getByRole('switch', { name: 'Enabled in production' }).isChecked()).toBe(false)
    const draft = page.getByRole('link', { name: /Your change request #\d+ \(Draft\): 1 change/ })
    await draft.click()

    // The review screen: the change in words, Send to review.
    await page.getByRole('heading', { level: 1, name: /Change request #\d+/ }).waitFor()
    const id = Number(/change-requests\/(\d+)/.exec(page.url())![1])
    await page.getByText('Switch on', { exact: true }).waitFor()
    await expectAccessible(page, 'review screen (draft)')
    // The author may not approve their own request.
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Send to review' }).click()
    await page.getByRole('status').filter({ hasText: `Change request #${id} is In review` }).waitFor()

    // Another person reviews: comments, and approves.
    const reviewer = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    await reviewer.page.goto(`${ui.server.origin}/projects/default/change-requests`)
    await reviewer.page.getByRole('link', { name: `#${id}` }).click()
    await reviewer.page.getByRole('heading', { level: 1, name: `Change request #${id}` }).waitFor()
    await expectAccessible(reviewer.page, 'review screen (in review)')
    await reviewer.page.getByRole('textbox', { name: 'Comment' }).fill('Looks right for the launch.')
    await reviewer.page.getByRole('button', { name: 'Add comment' }).click()
    await reviewer.page.getByText('Looks right for the launch.').waitFor()
    await reviewer.page.getByRole('button', { name: 'Approve' }).click()
    await reviewer.page.getByRole('status').filter({ hasText: `Change request #${id} is Approved` }).waitFor()
    await reviewer.page.getByText('1 of 1 approval').waitFor()
    expect((await productionOf(name)).enabled).toBe(false)
    expectClean(reviewer)
    await reviewer.context.close()

    // The author sees the approval (on the next read) and applies it.
    await page.reload()
    await page.getByText('Looks right for the launch.').waitFor()
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('status').filter({ hasText: `Change request #${id} is Applied` }).waitFor()
    await expectAccessible(page, 'review screen (applied)')
    expect((await productionOf(name)).enabled).toBe(true)

    // The flag's page shows it on, and its history names the request.
    await page.getByRole('link', { name, exact: true }).click()
    await expect.poll(() => page.getByRole('switch', { name: 'Enabled in production' }).isChecked()).toBe(true)
    expectClean(author)
    await author.context.close()
  })

  it('a new strategy requested through its dialog, approved by another person, who schedules it in their own time zone: stored in UTC and shown as scheduled', async () => {
    const name = await createFeature(ui.server.t.app)
    expect((await api('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })).status).toBe(200)

    const author = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = author
    await page.goto(`${ui.server.origin}/projects/default/features/${name}`)
    await page.getByRole('region', { name: 'production', exact: true }).getByRole('button', { name: 'Request a new strategy' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add strategy in production' })
    await dialog.getByLabel('Rollout').fill('30')
    await expectAccessible(page, 'strategy dialog in a guarded environment')
    await dialog.getByRole('button', { name: 'Request change' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await productionOf(name)).strategies).toEqual([])
    await page.getByRole('link', { name: /Your change request #\d+ \(Draft\): 1 change/ }).click()
    await page.getByText('Add a flexibleRollout strategy', { exact: true }).waitFor()
    const id = Number(/change-requests\/(\d+)/.exec(page.url())![1])
    await page.getByRole('button', { name: 'Send to review' }).click()
    await page.getByRole('status').filter({ hasText: `Change request #${id} is In review` }).waitFor()
    expectClean(author)
    await author.context.close()

    const reviewer = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    await reviewer.page.goto(`${ui.server.origin}/projects/default/change-requests/${id}`)
    await reviewer.page.getByRole('button', { name: 'Approve' }).click()
    await reviewer.page.getByRole('status').filter({ hasText: `Change request #${id} is Approved` }).waitFor()
    await reviewer.page.getByRole('button', { name: 'Schedule' }).click()
    const schedule = reviewer.page.getByRole('dialog', { name: `Schedule change request #${id}` })
    // Tomorrow at 09:30 in the browser's own time zone.
    const local = await reviewer.page.evaluate(() => {
      const d = new Date(Date.now() + 86_400_000)
      const pad = (n: number) => String(n).padStart(2, '0')
      return { input: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T09:30`, utc: new Date(d.getFullYear(), d.getMonth(), d.getDate(), 9, 30).toISOString() }
    })
    await schedule.getByLabel('Apply at').fill(local.input)
    await expectAccessible(reviewer.page, 'schedule dialog')
    await schedule.getByRole('button', { name: 'Schedule' }).click()
    await schedule.waitFor({ state: 'hidden' })
    await reviewer.page.getByText(/^Scheduled to apply at /).waitFor()
    await expectAccessible(reviewer.page, 'review screen (scheduled)')
    const stored = (await api('GET', `/api/admin/projects/default/change-requests/${id}`)).body
    expect(stored.state).toBe('Scheduled')
    expect(new Date(stored.schedule.scheduledAt).toISOString()).toBe(local.utc)
    expect(stored.schedule.status).toBe('pending')
    expect((await productionOf(name)).strategies).toEqual([])
    expectClean(reviewer)
    await reviewer.context.close()
  })
})

/** Production guarded in the default project (once is enough: the tests share the server). */
const guardProduction = async () =>
  expect((await api('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })).status).toBe(200)

/** An Editor switches the flag on in production (a proposal) and sends it to review; their page, and the request's id. */
async function switchOnProposed (name: string) {
  const author = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
  const { page } = author
  await page.goto(`${ui.server.origin}/projects/default/features/${name}`)
  // The switch proposes only once the page knows production is guarded.
  await page.getByText('Changes in production need a change request').waitFor()
  await page.getByRole('switch', { name: 'Enabled in production' }).click()
  await page.getByRole('status').filter({ hasText: 'added to your change request in production' }).waitFor()
  await page.getByRole('link', { name: /Your change request #\d+ \(Draft\): 1 change/ }).click()
  await page.getByRole('heading', { level: 1, name: /Change request #\d+/ }).waitFor()
  const id = Number(/change-requests\/(\d+)/.exec(page.url())![1])
  await page.getByRole('button', { name: 'Send to review' }).click()
  await page.getByRole('status').filter({ hasText: `Change request #${id} is In review` }).waitFor()
  return { author, id }
}

/** Another Editor opens the request; with `approve`, approves it. Their page. */
async function reviewerOn (id: number, approve: boolean) {
  const reviewer = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
  await reviewer.page.goto(`${ui.server.origin}/projects/default/change-requests/${id}`)
  await reviewer.page.getByRole('heading', { level: 1, name: `Change request #${id}` }).waitFor()
  if (approve) {
    await reviewer.page.getByRole('button', { name: 'Approve' }).click()
    await reviewer.page.getByRole('status').filter({ hasText: `Change request #${id} is Approved` }).waitFor()
  }
  return reviewer
}

const requestOf = async (id: number) => (await api('GET', `/api/admin/projects/default/change-requests/${id}`)).body

describe('when a change request does not go to plan', () => {
  it('a reviewer rejects it: the author sees it Rejected, with nothing left to do, and nothing is applied', async () => {
    await guardProduction()
    const name = await createFeature(ui.server.t.app)
    const { author, id } = await switchOnProposed(name)

    const reviewer = await reviewerOn(id, false)
    await reviewer.page.getByRole('button', { name: 'Reject' }).click()
    await reviewer.page.getByRole('status').filter({ hasText: `Change request #${id} is Rejected` }).waitFor()
    await expectAccessible(reviewer.page, 'review screen (rejected, reviewer)')
    expectClean(reviewer)
    await reviewer.context.close()

    const { page } = author
    await page.reload()
    await page.getByRole('heading', { level: 1, name: `Change request #${id}` }).waitFor()
    await page.getByText('Rejected', { exact: true }).waitFor()
    // A closed request: no Apply, Schedule, Send to review or Discard any more.
    for (const button of ['Apply', 'Schedule', 'Send to review', 'Cancel request']) expect(await page.getByRole('button', { name: button }).count(), button).toBe(0)
    await page.getByText('Switch on', { exact: true }).waitFor()
    await expectAccessible(page, 'review screen (rejected, author)')
    const stored = await requestOf(id)
    expect(stored.state).toBe('Rejected')
    expect(stored.rejections).toHaveLength(1)
    expect((await productionOf(name)).enabled).toBe(false)
    // The project's list says so too.
    await page.getByRole('link', { name: 'Change requests', exact: true }).click()
    await expect.poll(() => page.getByRole('row').filter({ hasText: `#${id}` }).innerText()).toMatch(/Rejected/)
    expectClean(author)
    await author.context.close()
  })

  it('a comment and an approval close together: the last word on the screen is the approval, not the comment', async () => {
    await guardProduction()
    const name = await createFeature(ui.server.t.app)
    const { author, id } = await switchOnProposed(name)
    await author.context.close()

    const reviewer = await reviewerOn(id, false)
    const { page } = reviewer
    // The flag read that the comment's write asks for again is slow: it is held until the
    // approval's other reads are done, so both writes' reads finish together, on that read.
    await page.waitForLoadState('networkidle')
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    await page.route(`**/api/admin/projects/default/features/${name}`, async (route) => {
      if (route.request().method() === 'GET') await held
      await route.continue()
    })
    await page.getByRole('textbox', { name: 'Comment' }).fill('Ship it.')
    await page.getByRole('button', { name: 'Add comment' }).click()
    await page.getByText('Ship it.').waitFor()
    const approved = page.waitForResponse((r) => r.url().endsWith(`/change-requests/${id}/state`) && r.status() === 200)
    await page.getByRole('button', { name: 'Approve' }).click()
    await approved
    await page.getByText('1 of 1 approval').waitFor()
    release()
    const status = page.getByRole('status').filter({ hasText: /Comment added|is Approved/ })
    await expect.poll(() => status.textContent()).toBe(`Change request #${id} is Approved`)
    // It stays the last word once every read is done.
    await page.waitForLoadState('networkidle')
    await page.waitForTimeout(200)
    expect(await status.textContent()).toBe(`Change request #${id} is Approved`)
    expect((await requestOf(id)).state).toBe('Approved')
    expectClean(reviewer)
    await reviewer.context.close()
  })

  it('an admin token edits the strategy a request changes: Apply says it conflicts, in words, and nothing is applied', async () => {
    await guardProduction()
    const name = await createFeature(ui.server.t.app)
    const strategies = `/api/admin/projects/default/features/${name}/environments/production/strategies`
    const strategy = await api('POST', strategies, { name: 'flexibleRollout', parameters: { rollout: '10', stickiness: 'default', groupId: name } })
    expect(strategy.status).toBe(200)

    // The author asks for 50% through the strategy's dialog.
    const author = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    const { page } = author
    await page.goto(`${ui.server.origin}/projects/default/features/${name}`)
    await page.getByRole('region', { name: 'production', exact: true }).getByRole('button', { name: /^Request change/ }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit strategy in production' })
    await dialog.getByLabel('Rollout').fill('50')
    await dialog.getByRole('button', { name: 'Request change' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('link', { name: /Your change request #\d+ \(Draft\): 1 change/ }).click()
    await page.getByRole('heading', { level: 1, name: /Change request #\d+/ }).waitFor()
    const id = Number(/change-requests\/(\d+)/.exec(page.url())![1])
    await page.getByText(`Change strategy ${strategy.body.id}`, { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Send to review' }).click()
    await page.getByRole('status').filter({ hasText: `Change request #${id} is In review` }).waitFor()
    const reviewer = await reviewerOn(id, true)
    expectClean(reviewer)
    await reviewer.context.close()

    // Automation writes directly meanwhile: the strategy is no longer what was reviewed.
    expect((await api('PUT', `${strategies}/${strategy.body.id}`, { name: 'flexibleRollout', parameters: { rollout: '30', stickiness: 'default', groupId: name } })).status).toBe(200)

    // The author, back on the request, reads the conflict in words; Apply anyway says why it cannot.
    await page.reload()
    await page.getByRole('alert').filter({ hasText: 'A change conflicts with what is stored now' }).waitFor()
    await page.getByText(/^Conflict: /).waitFor()
    author.allow(409, `/api/admin/projects/default/change-requests/${id}/state`)
    await page.getByRole('button', { name: 'Apply' }).click()
    const refusal = page.getByRole('alert').filter({ hasText: `Change request ${id} cannot be applied` })
    await refusal.waitFor()
    expect(await refusal.innerText()).toMatch(/nothing was applied/)
    await expectAccessible(page, 'review screen (conflict)')
    expect((await requestOf(id)).state).toBe('Approved')
    expect((await productionOf(name)).strategies.map((s: any) => s.parameters.rollout)).toEqual(['30'])
    expectClean(author)
    await author.context.close()
  })

  it('scheduled requests that cannot apply when their time comes: the flag archived (suspended), a segment deleted (failed); nothing applied, and the review screen says so in words', async () => {
    await guardProduction()
    // One request switches a flag on; the other adds a strategy using a segment.
    const name = await createFeature(ui.server.t.app)
    const { author, id } = await switchOnProposed(name)
    expectClean(author)
    await author.context.close()
    const other = await createFeature(ui.server.t.app)
    const segmentName = `launch-${other}`
    const segment = await api('POST', '/api/admin/segments', { name: segmentName, constraints: [] })
    expect(segment.status).toBe(201)
    const second = await openPage(ui.browser, ui.server, { as: { role: 'Editor' } })
    await second.page.goto(`${ui.server.origin}/projects/default/features/${other}`)
    await second.page.getByRole('region', { name: 'production', exact: true }).getByRole('button', { name: 'Request a new strategy' }).click()
    const dialog = second.page.getByRole('dialog', { name: 'Add strategy in production' })
    await dialog.getByRole('checkbox', { name: segmentName }).check()
    await dialog.getByRole('button', { name: 'Request change' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await second.page.getByRole('link', { name: /Your change request #\d+ \(Draft\): 1 change/ }).click()
    await second.page.getByRole('heading', { level: 1, name: /Change request #\d+/ }).waitFor()
    const id2 = Number(/change-requests\/(\d+)/.exec(second.page.url())![1])
    await second.page.getByRole('button', { name: 'Send to review' }).click()
    await second.page.getByRole('status').filter({ hasText: `Change request #${id2} is In review` }).waitFor()
    expectClean(second)
    await second.context.close()

    // A reviewer approves both and schedules them for the next whole minute (at least 15 s ahead: the form takes minutes).
    const reviewer = await reviewerOn(id2, true)
    const { page } = reviewer
    const at = await page.evaluate(() => {
      const d = new Date(Date.now() + 75_000)
      d.setSeconds(0, 0)
      const pad = (n: number) => String(n).padStart(2, '0')
      return { input: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, utc: d.toISOString() }
    })
    for (const [n, approve] of [[id, true], [id2, false]] as const) {
      await page.goto(`${ui.server.origin}/projects/default/change-requests/${n}`)
      await page.getByRole('heading', { level: 1, name: `Change request #${n}` }).waitFor()
      if (approve) {
        await page.getByRole('button', { name: 'Approve' }).click()
        await page.getByRole('status').filter({ hasText: `Change request #${n} is Approved` }).waitFor()
      }
      await page.getByRole('button', { name: 'Schedule' }).click()
      const schedule = page.getByRole('dialog', { name: `Schedule change request #${n}` })
      await schedule.getByLabel('Apply at').fill(at.input)
      await schedule.getByRole('button', { name: 'Schedule' }).click()
      await schedule.waitFor({ state: 'hidden' })
      await page.getByText(/^Scheduled to apply at /).waitFor()
      expect(new Date((await requestOf(n)).schedule.scheduledAt).toISOString()).toBe(at.utc)
    }

    // Before the time comes, an admin token archives the first flag and deletes the segment.
    expect((await api('DELETE', `/api/admin/projects/default/features/${name}`)).status).toBe(202)
    expect((await api('DELETE', `/api/admin/segments/${segment.body.id}`)).status).toBe(204)
    for (const n of [id, id2]) await expect.poll(async () => (await requestOf(n)).schedule.status, { timeout: 100_000, interval: 1000 }).not.toBe('pending')

    // The archived flag's page is gone with it: the screen shows the request from its own read.
    reviewer.allow(404, `/api/admin/projects/default/features/${name}`)
    await page.goto(`${ui.server.origin}/projects/default/change-requests/${id}`)
    const suspended = page.getByRole('alert').filter({ hasText: /The schedule for .* is suspended, and nothing was applied/ })
    await suspended.waitFor()
    expect(await suspended.innerText()).toMatch(/Feature has been archived/)
    await page.getByRole('button', { name: 'Reschedule' }).waitFor()
    await expectAccessible(page, 'review screen (schedule suspended)')

    await page.goto(`${ui.server.origin}/projects/default/change-requests/${id2}`)
    const failed = page.getByRole('alert').filter({ hasText: /The scheduled apply at .* failed, and nothing was applied/ })
    await failed.waitFor()
    expect(await failed.innerText()).toMatch(/names no segment/)
    await expectAccessible(page, 'review screen (schedule failed)')

    expect(await requestOf(id)).toMatchObject({ state: 'Scheduled', schedule: { status: 'suspended', reason: expect.stringMatching(/Feature has been archived/) } })
    expect(await requestOf(id2)).toMatchObject({ state: 'Scheduled', schedule: { status: 'failed', reason: expect.stringMatching(/names no segment/) } })
    expect((await productionOf(other)).strategies).toEqual([])
    const events = (await api('GET', '/api/admin/events?limit=50')).body.events as any[]
    const about = (n: number) => events.filter((e) => e.data?.changeRequestId === n).map((e) => e.type)
    expect(about(id)).toContain('change-request-schedule-suspended')
    expect(about(id2)).toContain('change-request-scheduled-application-failure')
    expect([...about(id), ...about(id2)]).not.toContain('change-request-applied')
    expectClean(reviewer)
    await reviewer.context.close()
  }, 200_000)
})

describe('a change request\'s preview', () => {
  it('the review screen\'s Preview shows each flag as the request would make it, for each value of a field, and applies nothing', async () => {
    await guardProduction()
    const name = await createFeature(ui.server.t.app)
    expect((await api('POST', `/api/admin/projects/default/features/${name}/environments/production/strategies`, { name: 'userWithId', parameters: { userIds: 'u1' } })).status).toBe(200)
    const { author, id } = await switchOnProposed(name)
    const { page } = author
    await page.getByRole('link', { name: `Preview change request #${id}` }).click()
    await page.getByRole('heading', { level: 1, name: `Preview of change request #${id}` }).waitFor()
    await page.getByText(`as change request #${id} would make them`).waitFor()
    await page.getByLabel('userId').fill('u1,u2')
    await expectAccessible(page, 'change request preview form')
    await page.getByRole('button', { name: 'Preview', exact: true }).click()
    const results = (userId: string) => page.getByRole('region', { name: `Results in production for userId ${userId}, appName playground` })
    for (const [userId, verdict] of [['u1', 'On'], ['u2', 'Off']] as const) {
      const answer = results(userId).locator('summary', { hasText: name })
      await answer.waitFor()
      expect(await answer.locator('.env-state').innerText(), userId).toBe(verdict)
    }
    await expectAccessible(page, 'change request preview results')
    // Nothing was applied: the flag is still off, the request still In review.
    expect((await productionOf(name)).enabled).toBe(false)
    expect((await requestOf(id)).state).toBe('In review')
    expectClean(author)
    await author.context.close()
  })
})
