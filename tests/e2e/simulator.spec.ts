// The traffic screens as a user meets them: a WordPress login with the vendor's test credentials
// run through the Simulator against the exposed-credentials ruleset (passed, with the header the
// rule adds toward the origin and the credential check in the trace), saved samples as a
// regression suite, and a replay of attack traffic against the managed ruleset whose blocked
// requests show in the outcome chart and then, recorded on request, as security events, within
// the event log's caps.

import { expect, test, type Workbench } from './fixtures'

const PHASE = 'http_request_firewall_managed'
const EXPOSED_CREDENTIALS = 'c2e184081120413c86c3ab7e14069605'
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const WORDPRESS_RULE = 'WordPress - Check for exposed credentials - wp-login.php form'

/** A new pro zone with one managed ruleset deployed; answers its id. */
async function zoneWithRuleset(workbench: Workbench, name: string, rulesetId: string) {
  const headers = {
    authorization: `Bearer ${workbench.token}`,
    'content-type': 'application/json',
  }
  const zone = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name, plan: 'pro' }),
  }).then((r) => r.json())
  expect(zone.success).toBe(true)
  const deployed = await fetch(
    `${workbench.api}/zones/${zone.result.id}/rulesets/phases/${PHASE}/entrypoint`,
    {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        rules: [{ action: 'execute', expression: 'true', action_parameters: { id: rulesetId } }],
      }),
    },
  ).then((r) => r.json())
  expect(deployed.success).toBe(true)
  return zone.result.id as string
}

test('simulate a WordPress login with exposed credentials and keep it as a sample', async ({
  page,
  workbench,
  browser,
}) => {
  const zoneId = await zoneWithRuleset(workbench, 'blog.example.org', EXPOSED_CREDENTIALS)

  await page.goto(workbench.ui)
  await page.getByRole('link', { name: 'Simulator' }).click()
  // The screen's address names the zone once the zones are read (lib/route.ts).
  await expect(page).toHaveURL(/#\/zones\/[0-9a-f]{32}\/simulator$/)
  await expect(page.getByLabel('Zone')).toHaveValue(/^[0-9a-f]{32}$/)

  // A URL without its scheme would be a path on no host: the service says so, and runs nothing.
  await page.getByLabel('URL').fill('blog.example.org/wp-login.php')
  await page.getByRole('button', { name: 'Run', exact: true }).click()
  await expect(
    page.getByText(/body\/url must be an absolute URL \(https:\/\/host\/path\) or a path/),
  ).toBeVisible()
  await page.getByLabel('Method').selectOption('POST')
  await page.getByLabel('URL').fill('https://blog.example.org/wp-login.php')
  // A JSON body is checked as it is typed; a broken one is not run, and Run says so at the body.
  await page.getByRole('radio', { name: 'JSON' }).check()
  await page.getByLabel('JSON body').fill('{"log": ')
  await expect(page.getByText(/^Not valid JSON/)).toBeVisible()
  await page.getByRole('button', { name: 'Run', exact: true }).click()
  await expect(page.getByLabel('JSON body')).toBeFocused()
  await expect(page.locator('#json-body-errors')).toHaveText(
    'Correct the JSON body first, or choose another body format.',
  )
  await page.getByRole('radio', { name: 'Form' }).check()
  await page.getByLabel('Form field 1 name').fill('log')
  await page.getByLabel('Form field 1 value').fill('CF_EXPOSED_USERNAME')
  await page.getByRole('button', { name: 'Add form field' }).click()
  await page.getByLabel('Form field 2 name').fill('pwd')
  await page.getByLabel('Form field 2 value').fill('CF_EXPOSED_PASSWORD')
  await page.getByRole('button', { name: 'Run', exact: true }).click()

  const outcome = page.getByRole('region', { name: 'Outcome' })
  await expect(outcome.locator('[data-outcome]').first()).toHaveAttribute('data-outcome', 'passed')
  await expect(outcome.getByText('Passed', { exact: true })).toBeVisible()
  await expect(
    outcome.getByRole('list', { name: 'Headers added toward the origin' }),
  ).toContainText('Exposed-Credential-Check: 1')
  const events = outcome.getByRole('table', { name: 'Events' })
  await expect(events).toContainText(WORDPRESS_RULE)
  // The event names its rule; the id is on hover and copy, not in the text (issue 19).
  await expect(events).not.toContainText(/\b[0-9a-f]{32}\b/)
  await expect(events.getByTitle(/^Rule ID [0-9a-f]{32}$/)).toHaveText(WORDPRESS_RULE)
  await expect(
    events.getByRole('button', { name: `Copy the rule ID of ${WORDPRESS_RULE}` }),
  ).toBeVisible()

  const trace = page.getByRole('list', { name: 'Trace' })
  const wordpress = trace.getByRole('article', { name: WORDPRESS_RULE })
  await expect(wordpress.locator('[data-action]')).toHaveAttribute('data-action', 'rewrite')
  await expect(wordpress).toContainText('Rewrite')
  await expect(wordpress).toContainText('Matched')
  await expect(wordpress).toContainText('CF_EXPOSED_USERNAME')
  await expect(wordpress).toContainText('exposed credentials')
  // The link opens that screen of the zone simulated.
  await expect(wordpress.getByRole('link', { name: `Edit ${WORDPRESS_RULE}` })).toHaveAttribute(
    'href',
    `#/zones/${zoneId}/managed-rules`,
  )
  // Rules that did not match appear only when asked for.
  const joomla = trace.getByRole('article', { name: /^Joomla - / })
  await expect(joomla).toHaveCount(0)
  await page.getByLabel('Show all rules').check()
  await expect(joomla).toContainText('Not matched')

  await page.screenshot({ path: 'test-results/e2e/simulator.png', fullPage: true })

  // Two samples, one expecting the wrong outcome: the suite shows the mismatch.
  await page.getByLabel('Sample name').fill('Exposed WordPress login')
  await page.getByLabel('Expected outcome').selectOption('passed')
  await page.getByRole('button', { name: 'Save sample' }).click()
  // Focus goes to the sample saved, not to <body> (Save waits for a name again).
  await expect(page.getByRole('button', { name: 'Open Exposed WordPress login' })).toBeFocused()
  await page.getByLabel('Sample name').fill('Login should be blocked')
  await page.getByLabel('Expected outcome').selectOption('blocked')
  await page.getByRole('button', { name: 'Save sample' }).click()
  await expect(page.getByRole('list', { name: 'Samples' }).getByRole('listitem')).toHaveCount(2)

  await page.getByRole('button', { name: 'Run all samples' }).click()
  await expect(page.getByText('1 of 2 samples got the expected outcome.')).toBeVisible()
  const results = page.getByRole('table', { name: 'Regression results' })
  await expect(results.getByRole('row', { name: /Exposed WordPress login/ })).toContainText(
    'As expected',
  )
  await expect(results.getByRole('row', { name: /Login should be blocked/ })).toContainText(
    'Mismatch',
  )

  // Samples are kept per zone across visits.
  await page.reload()
  await expect(page.getByRole('list', { name: 'Samples' }).getByRole('listitem')).toHaveCount(2)

  // They live in the zone, not in the browser: a new context, with empty storage, lists them too.
  const fresh = await browser.newContext()
  const other = await fresh.newPage()
  await other.goto(workbench.ui)
  await other.getByRole('link', { name: 'Simulator' }).click()
  const listed = other.getByRole('list', { name: 'Samples' }).getByRole('listitem')
  await expect(listed).toHaveCount(2)
  await expect(listed.first()).toContainText('Exposed WordPress login')
  await fresh.close()

  // Deleting a sample hands focus to the one now in its place, the last to the name of a new one.
  await page.getByRole('button', { name: 'Delete Exposed WordPress login' }).click()
  await expect(page.getByRole('button', { name: 'Open Login should be blocked' })).toBeFocused()
  await page.getByRole('button', { name: 'Delete Login should be blocked' }).click()
  await expect(page.getByLabel('Sample name')).toBeFocused()
})

test('samples an earlier version kept in the browser move into the zone', async ({
  page,
  workbench,
}) => {
  const zoneId = await zoneWithRuleset(workbench, 'legacy.example.org', GENERAL)
  const key = `zone-workbench:samples:${zoneId}`
  await page.goto(workbench.ui)
  await page.evaluate(([storageKey, stored]) => localStorage.setItem(storageKey, stored), [
    key,
    JSON.stringify([
      {
        id: 'f3b1c2d4-0000-4000-8000-000000000001',
        name: 'Old probe',
        expected: 'blocked',
        fields: {
          method: 'GET',
          url: 'https://legacy.example.org/?q=<script>',
          headers: [{ name: 'user-agent', value: 'curl/8.0' }],
          bodyMode: 'none',
          formRows: [{ name: '', value: '' }],
          json: '{}',
          raw: '',
          ip: '',
          country: '',
          botScore: null,
          threatScore: null,
        },
      },
    ]),
  ] as const)
  await page.getByRole('link', { name: 'Simulator' }).click()
  const listed = page.getByRole('list', { name: 'Samples' }).getByRole('listitem')
  await expect(listed).toHaveCount(1)
  await expect(listed).toContainText('Old probe')
  expect(await page.evaluate((storageKey) => localStorage.getItem(storageKey), key)).toBeNull()
  const samples = await fetch(
    `${new URL(workbench.api).origin}/workbench/v1/zones/${zoneId}/samples`,
    {
      headers: { authorization: `Bearer ${workbench.token}` },
    },
  ).then((r) => r.json())
  expect(samples.result).toMatchObject([
    {
      name: 'Old probe',
      expected: 'blocked',
      request: { method: 'GET', url: 'https://legacy.example.org/?q=<script>' },
    },
  ])
})

test('replay attack traffic against the managed ruleset and find the blocks as events', async ({
  page,
  workbench,
}) => {
  await zoneWithRuleset(workbench, 'www.example.com', GENERAL)

  await page.goto(`${workbench.ui}#/replay`)
  await expect(page.getByLabel('Zone')).toHaveValue(/^[0-9a-f]{32}$/)
  // The picker offers every kind of file the service reads: requests, HAR, logs, gzipped.
  const accepted = (await page.getByLabel('Traffic file').getAttribute('accept'))!.split(',')
  for (const extension of ['.ndjson', '.jsonl', '.har', '.json', '.txt', '.log', '.gz']) {
    expect(accepted).toContain(extension)
  }
  await page.getByLabel('Traffic file').setInputFiles('tests/fixtures/traffic/attacks.ndjson')
  const record = page.getByLabel('Record security events')
  await expect(record).not.toBeChecked()
  await record.check()
  await page.getByRole('button', { name: 'Replay', exact: true }).click()

  await expect(page.getByRole('status').filter({ hasText: 'requests replayed' })).toHaveText(
    '217 of 217 requests replayed',
  )
  const chart = page.getByRole('img', { name: /^Outcomes of 217 requests/ })
  await expect(chart).toHaveAttribute('aria-label', /Blocked: [1-9]\d*/)
  await expect(page.getByRole('table', { name: 'Top rules' }).getByRole('row').nth(1)).toBeVisible()
  await expect(page.getByRole('table', { name: 'Top paths' })).toBeVisible()
  await page.screenshot({ path: 'test-results/e2e/replay.png', fullPage: true })

  await page.getByRole('link', { name: 'Security events' }).click()
  await page.getByRole('combobox', { name: 'Action' }).selectOption('block')
  const events = page.getByRole('table', { name: 'Security events' })
  await expect(events.getByRole('row').nth(1)).toContainText('Block')
  await expect(page.getByRole('img', { name: /events over time/ })).toHaveAttribute(
    'aria-label',
    /Block: [1-9]\d*/,
  )
  await page.screenshot({ path: 'test-results/e2e/events.png' })

  // A lower cap drops the oldest events at once, and says how many.
  const log = page.getByRole('form', { name: 'Event log' })
  await expect(log).toContainText('0 events dropped')
  await log.getByLabel('Most events').fill('10')
  await log.getByRole('button', { name: 'Set caps' }).click()
  await expect(log).toContainText(/10 events stored .*at\s+most 10 events/s)
  await expect(log).toContainText(/[1-9][\d,]* events dropped/)
  await expect(events.getByRole('row')).toHaveCount(11)
  await page.screenshot({ path: 'test-results/e2e/event-log.png' })
})
