// The migration rehearsed as a team would: a Business zone on the previous product (OWASP
// sensitivity High, one firewall rule bypassing the WAF) walks through the wizard (settings,
// eligibility, review, a side-by-side replay, cut-over with confirmation) and ends on managed
// rulesets with paranoia level 2 and threshold 40; the previous product's API is gone.

import { expect, test } from './fixtures'

const OWASP_RULESET = '4814384a9e5d4991b9815dcfc25d2f1f'
const OWASP_ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
const ZONE = 'shop.example.com'

// Short enough for a test, long enough to see the switch-over pending.
test.use({ workbenchEnv: { ZONE_WORKBENCH_MIGRATION_SWITCH_MS: '3000' } })

test('a Business zone on the previous product migrates through the wizard', async ({
  page,
  workbench,
}) => {
  const headers = {
    authorization: `Bearer ${workbench.token}`,
    'content-type': 'application/json',
  }
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${workbench.api}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }))

  // The zone is created on the Zones screen, on the previous product.
  await page.goto(workbench.ui)
  await page.getByPlaceholder('example.com').fill(ZONE)
  await page.getByLabel('Plan', { exact: true }).selectOption('business')
  await page.getByLabel('WAF product').selectOption('previous')
  await page.getByRole('button', { name: 'Create zone' }).click()
  const zoneRow = page.getByRole('row', { name: new RegExp(ZONE.replaceAll('.', '\\.')) })
  await expect(zoneRow).toContainText('Previous WAF (to migrate)')
  const zoneId: string = (await call('GET', `/zones?name=${ZONE}`)).body.result[0].id

  // Setup through the API: one firewall rule that bypasses WAF managed rules.
  const created = await call('POST', `/zones/${zoneId}/firewall/rules`, [
    {
      filter: { expression: 'http.request.uri.path eq "/healthz"' },
      action: 'bypass',
      products: ['waf'],
      description: 'Health checks skip the WAF',
    },
  ])
  expect(created.body.success).toBe(true)

  // 1. Current settings.
  await page.getByRole('link', { name: 'Migration' }).click()
  await expect(page.getByTestId('migration-state')).toHaveText('Not started')
  await expect(page.getByRole('switch', { name: 'Web Application Firewall' })).toBeChecked()
  await expect(page.getByLabel('OWASP sensitivity')).toHaveValue('high')
  await page.getByLabel('OWASP action mode').selectOption('block')
  await expect(page.getByLabel('OWASP action mode')).toHaveValue('block')
  const packages = (await call('GET', `/zones/${zoneId}/firewall/waf/packages`)).body.result
  const owaspPackage = packages.find((p: any) => p.detection_mode === 'anomaly')
  expect(owaspPackage).toMatchObject({ sensitivity: 'high', action_mode: 'block' })
  await expect(
    page.getByRole('table', { name: 'Firewall rules that bypass the WAF' }),
  ).toContainText('Health checks skip the WAF')
  await expect(page.getByRole('region', { name: 'URI-based overrides' })).toContainText(
    'No URI-based overrides.',
  )

  // A group switched from its default is listed as not migrated on review.
  const groupsTable = page.getByRole('table', { name: `Groups of ${owaspPackage.name}` })
  const groupSwitch = groupsTable.getByRole('switch').first()
  const groupName = ((await groupSwitch.getAttribute('aria-label')) ?? '').replace(/^Group /, '')
  const wasOn = await groupSwitch.isChecked()
  await groupSwitch.setChecked(!wasOn)
  await expect(groupsTable.getByRole('switch', { name: `Group ${groupName}` })).toBeChecked({
    checked: !wasOn,
  })

  // 2. Eligibility.
  await page.getByRole('button', { name: 'Next: Eligibility' }).click()
  await expect(page.getByTestId('eligibility')).toHaveText('Eligible: this zone can migrate')

  // 3. Review: High → PL2 with threshold 40, the bypass rule as a skip rule in the diff.
  await page.getByRole('button', { name: 'Next: Review' }).click()
  await expect(page.getByTestId('paranoia-level')).toHaveText('PL2')
  await expect(page.getByTestId('score-threshold')).toHaveText('40')
  await expect(page.getByTestId('owasp-action')).toHaveText('Block')
  const diff = page.getByRole('table', { name: 'Configuration diff' })
  await expect(
    diff.locator('tr[data-kind="added"]').filter({ hasText: '"action": "skip"' }).first(),
  ).toBeVisible()
  await expect(page.getByRole('table', { name: 'Not migrated' })).toContainText(groupName)

  // 4. Validate: Business zones have no validation mode; compare the products on traffic.
  await page.getByRole('button', { name: 'Next: Validate' }).click()
  await expect(page.getByText('Validation mode is for Enterprise zones only.')).toBeVisible()
  await page.getByLabel('Traffic', { exact: true }).fill(
    [
      { method: 'GET', url: `https://${ZONE}/` },
      { method: 'GET', url: `https://${ZONE}/healthz?id=1%27%20UNION%20SELECT%20password--` },
      {
        method: 'GET',
        url: `https://${ZONE}/?id=1%27%20UNION%20SELECT%20password%20FROM%20users--`,
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  )
  await page.getByRole('button', { name: 'Compare', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'requests compared' })).toHaveText(
    '3 of 3 requests compared',
  )
  await expect(page.getByTestId('comparison-chart')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Outcome matrix' })).toBeVisible()
  // focus followed the compare to its result, from the Compare button its run disabled
  await expect(page.getByTestId('comparison-summary')).toBeFocused()
  await expect(
    page.getByRole('table', { name: 'Compared requests' }).locator('tbody tr'),
  ).toHaveCount(3)

  // 5. Cut over, after typing the zone's name; the status is followed until completed.
  await page.getByRole('button', { name: 'Next: Cut over' }).click()
  const migrate = page.getByRole('button', { name: 'Migrate to managed rulesets' })
  await expect(page.getByText('This cannot be undone.')).toBeVisible()
  await expect(migrate).toBeDisabled()
  // The same calls, for production: the rehearsed entry point, deployed with waf_migration.
  await page.getByText('The same calls for production').click()
  const script = page.getByLabel('Production script')
  await expect(script).toContainText('waf_migration=pending&phase_two=1')
  await expect(script).toContainText('"score_threshold": 40')
  await page.getByLabel('Zone name to confirm').fill(ZONE)
  await migrate.click()
  await expect(page.getByTestId('switch-countdown')).toBeVisible()
  await expect(page.getByTestId('migration-state')).toHaveText('Switching over')
  await expect(page.getByRole('heading', { name: 'This zone is on managed rulesets' })).toBeVisible(
    {
      timeout: 20_000,
    },
  )
  await expect(
    page.getByRole('heading', { name: 'This zone is on managed rulesets' }),
  ).toBeFocused()
  await expect(page.getByTestId('status-state')).toHaveText('completed')
  await expect(page.getByTestId('old-waf-status')).toHaveText('Disabled')
  await expect(page.getByTestId('new-waf-status')).toHaveText('Enabled')
  await expect(page.getByRole('link', { name: 'Open Managed rules' })).toBeVisible()
  await page.screenshot({ path: 'test-results/e2e/migration.png', fullPage: true })

  // The entry point deploys the OWASP core ruleset at PL2 with threshold 40.
  const entrypoint = await call(
    'GET',
    `/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`,
  )
  expect(entrypoint.body.success).toBe(true)
  const rules: any[] = entrypoint.body.result.rules
  const owasp = rules.find(
    (rule) => rule.action === 'execute' && rule.action_parameters?.id === OWASP_RULESET,
  )
  expect(owasp).toBeDefined()
  const overrides = owasp.action_parameters.overrides
  expect(overrides.categories).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ category: 'paranoia-level-3', enabled: false }),
      expect.objectContaining({ category: 'paranoia-level-4', enabled: false }),
    ]),
  )
  expect(overrides.categories).not.toContainEqual(
    expect.objectContaining({ category: 'paranoia-level-2', enabled: false }),
  )
  const anomaly = overrides.rules.find((rule: any) => rule.id === OWASP_ANOMALY_RULE)
  expect(anomaly).toMatchObject({ score_threshold: 40 })
  expect(rules.some((rule) => rule.action === 'skip')).toBe(true)

  // The previous product's API is gone for this zone.
  const gone = await call('GET', `/zones/${zoneId}/firewall/waf/packages`)
  expect(gone.status).toBe(400)
  expect(gone.body.success).toBe(false)
  expect(gone.body.errors[0].code).toBe(10400)
  const status = await call('GET', `/zones/${zoneId}/waf_migration/status`)
  expect(status.body.result.migration_state).toBe('completed')
})
