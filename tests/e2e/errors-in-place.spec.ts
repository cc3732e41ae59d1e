// Errors where they belong: an expression's error is said in words under the editor, with its
// span underlined; the API's refusal is shown at the field it points at, not at the top of the
// page; an action the zone's plan cannot use is offered disabled with its reason; Managed rules
// does not offer Deploy to a zone still on the previous product, and links to its migration
// instead. A form's submit is not disabled for what is typed or chosen (a disabled button cannot
// say why): pressed from the keyboard with a field that cannot be sent, it sends nothing, says why
// at that field (named by its aria-describedby) and moves focus there, on Zones, Firewall rules
// (rule, filter, quota, plan default), Managed rules (tag override, Save), Simulator (Run, Save
// sample), Replay, Migration's Compare, Import and Production, at 1024×700 with nothing for axe
// to find; put right, each is sent.

import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page, Request } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'
import { zoneExecuting } from './managed-zone'

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

async function call(workbench: Workbench, method: string, path: string, body?: unknown) {
  const answer = await fetch(`${workbench.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((r) => r.json())
  expect(answer.success).toBe(true)
  return answer.result
}

test('an expression error is said under the editor, and Create rule says why it is not sent; a refusal shows at its field', async ({
  page,
  workbench,
}) => {
  const zone = await call(workbench, 'POST', '/zones', { name: 'shop.example', plan: 'business' })
  await call(workbench, 'POST', `/zones/${zone.id}/firewall/rules`, [
    { action: 'block', filter: { expression: 'http.host eq "admin.shop.example"' } },
  ])

  await page.goto(`${workbench.ui}#/firewall-rules`)
  const editor = page.getByRole('textbox', { name: 'Rule expression' })
  const create = page.getByRole('button', { name: 'Create rule' })
  const message = page.locator('.zw-expression-error-message')
  await editor.click()
  await page.keyboard.type('ip.src in {1.2.3')

  // The address is underlined and said in words; the vendor's wording stays the API's.
  await expect(page.locator('.cm-content .zw-expression-error')).toHaveText('1.2.3')
  await expect(message).toContainText('`1.2.3` at 1:12 is not an IP address')
  // Create rule says why it sends nothing, under the editor's own message, and returns focus there.
  await create.click()
  const atField = page.locator('#rule-expression-errors')
  await expect(atField).toHaveText("Correct the error in the rule's expression first.")
  await expect(editor).toBeFocused()

  // A whole address with the set left open: the `}` is what is missing, not an address character.
  await page.keyboard.type('.4')
  await expect(message).toContainText('a `}` is missing to close the set opened at 1:11')
  await expect(message).not.toContainText('IP address character')
  // Screen readers hear it once typing pauses, from a polite live region.
  await expect(page.locator('[aria-live="polite"]', { hasText: 'is missing' })).toHaveText(
    'Error at line 1, column 19: a `}` is missing to close the set opened at 1:11',
  )
  await page.screenshot({ path: 'test-results/e2e/errors-in-place-editor.png', fullPage: true })

  await page.keyboard.type('}')
  await expect(message).toHaveCount(0)
  await expect(atField).toHaveCount(0)

  // The plan cannot use `log`: it is offered disabled, with the reason.
  const action = page.getByLabel('Action', { exact: true })
  await expect(action.locator('option[value="log"]')).toBeDisabled()
  await expect(
    page.getByText(
      'Log cannot be chosen: the log action is available on the Enterprise plan only.',
    ),
  ).toBeVisible()

  // A filter with the expression of an existing one: the API's refusal points at the expression,
  // and it is shown under the editor, not above the screen.
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.type('http.host eq "admin.shop.example"')
  await create.click()
  await expect(atField).toContainText('config duplicates an already existing config')
  await expect(page.locator('.screen > .error')).toHaveCount(0)
  await page.screenshot({ path: 'test-results/e2e/errors-in-place-field.png', fullPage: true })
})

test('a zone on the previous product is sent to its migration instead of offered Deploy', async ({
  page,
  workbench,
}) => {
  const legacy = await call(workbench, 'POST', '/zones', {
    name: 'legacy.example',
    plan: 'business',
    waf_product: 'previous',
  })
  await page.goto(`${workbench.ui}#/managed-rules`)
  const catalog = page.getByRole('list', { name: 'Managed rulesets' })
  await expect(catalog.getByRole('button', { name: /^Deploy / }).first()).toBeDisabled()
  await expect(
    page.getByText('legacy.example still runs the previous WAF managed rules'),
  ).toBeVisible()
  // The link names the zone, so the Migration screen opens on it.
  const toMigration = page.getByRole('link', { name: 'Open the Migration screen' })
  await expect(toMigration).toHaveAttribute('href', `#/zones/${legacy.id}/migration`)
  await toMigration.click()
  await expect(page.getByRole('heading', { level: 1, name: /Migration/ })).toBeVisible()
})

test('Production shows a refused remote at the field it names', async ({ page, workbench }) => {
  await page.goto(`${workbench.ui}#/production`)
  await page.getByLabel('API base URL').fill('http://api.example.com/client/v4')
  await page.getByLabel('API token').fill('a-token')
  await page.getByLabel('Remote zone (name or id)').fill('shop.example')
  await page.getByRole('button', { name: 'Pull from remote' }).click()
  await expect(page.locator('#remote-base-url-errors')).toContainText(
    'base_url must be https:, or http: to a loopback host',
  )
  await expect(page.locator('.screen > .error')).toHaveCount(0)
})

/** Presses `button` from the keyboard: it is a tab stop, not a disabled control skipped over. */
async function pressFromKeyboard(button: Locator) {
  await expect(button).toBeEnabled()
  await button.focus()
  await button.press('Enter')
}

/** The sentence at the field, which describes it and has focus. */
async function expectSaidAt(field: Locator, errorsId: string, sentence: string | RegExp) {
  await expect(field.page().locator(`#${errorsId}`)).toHaveText(sentence)
  await expect(field).toHaveAttribute('aria-describedby', new RegExp(`(^| )${errorsId}( |$)`))
  await expect(field).toBeFocused()
}

async function expectNoAxeFindings(page: Page) {
  const axe = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze()
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual(
    [],
  )
}

/**
 * The requests the page sends to the API while `work` runs, but reads: a GET, or a bridge call
 * carrying one (a screen still listing what it shows is not a form sent).
 */
async function requestsDuring(page: Page, work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = []
  const record = (request: Request) => {
    const call = request.url().endsWith('/bridge/callApi') ? request.postDataJSON() : null
    const method = call?.method ?? request.method()
    if (method !== 'GET') sent.push(`${method} ${call?.path ?? request.url()}`)
  }
  page.on('request', record)
  await work()
  page.off('request', record)
  return sent
}

test.describe('at 1024×700', () => {
  test.use({ viewport: { width: 1024, height: 700 } })

  test('Create zone with no name says so at the name and sends nothing', async ({
    page,
    workbench,
  }) => {
    await page.goto(workbench.ui)
    const name = page.getByLabel('Zone name')
    const create = page.getByRole('button', { name: 'Create zone' })
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(create)
      await expectSaidAt(
        name,
        'zone-name-errors',
        'Enter a name for the zone, such as example.com.',
      )
    })
    expect(sent).toEqual([])
    await expect(name).toHaveAttribute('aria-invalid', 'true')
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-zone-name.png' })

    // Typing a name takes the sentence away; the zone is then created.
    await page.keyboard.type('said.example')
    await expect(page.locator('#zone-name-errors')).toHaveCount(0)
    await pressFromKeyboard(create)
    await expect(page.getByRole('table', { name: 'Zones' })).toContainText('said.example')
    await expect(page.locator('#zone-name-errors')).toHaveCount(0)
  })

  test('Firewall rules: Create rule, Create filter and Set quota say what is missing', async ({
    page,
    workbench,
  }) => {
    const zone = await call(workbench, 'POST', '/zones', { name: 'said.example', plan: 'business' })
    await page.goto(`${workbench.ui}#/zones/${zone.id}/firewall-rules`)
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(page.getByRole('button', { name: 'Create rule' }))
      await expectSaidAt(
        page.getByRole('textbox', { name: 'Rule expression' }),
        'rule-expression-errors',
        "Enter the rule's expression.",
      )

      await pressFromKeyboard(page.getByRole('button', { name: 'Create filter' }))
      await expectSaidAt(
        page.getByRole('textbox', { name: 'Filter expression' }),
        'filter-expression-errors',
        "Enter the filter's expression.",
      )

      await pressFromKeyboard(page.getByRole('button', { name: 'Set quota' }))
      await expectSaidAt(
        page.getByLabel('New rule quota'),
        'rule-quota-errors',
        'Enter the new rule quota: a whole number, 0 or more.',
      )
      await page.keyboard.type('-2')
      await pressFromKeyboard(page.getByRole('button', { name: 'Set quota' }))
      await expectSaidAt(
        page.getByLabel('New rule quota'),
        'rule-quota-errors',
        'Enter the new rule quota: a whole number, 0 or more.',
      )

      // Bypass with no product says so at the products, and focus goes to the first of them.
      await page.getByRole('textbox', { name: 'Rule expression' }).fill('ip.src eq 192.0.2.7')
      await page.getByLabel('Action', { exact: true }).selectOption('bypass')
      await pressFromKeyboard(page.getByRole('button', { name: 'Create rule' }))
      await expect(page.locator('#rule-products-errors')).toHaveText(
        'Choose at least one product for the rule to bypass.',
      )
      await expect(page.getByRole('group', { name: 'Products to bypass' })).toHaveAttribute(
        'aria-describedby',
        'rule-products-errors',
      )
      await expect(
        page.getByRole('group', { name: 'Products to bypass' }).getByRole('checkbox').first(),
      ).toBeFocused()
      await expect(page.locator('#rule-expression-errors')).toHaveCount(0)
    })
    expect(sent).toEqual([])
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-firewall.png' })

    // Put right, each is sent: the quota is set and the rule created.
    await page.getByLabel('New rule quota').fill('7')
    await pressFromKeyboard(page.getByRole('button', { name: 'Set quota' }))
    await expect(page.getByRole('form', { name: 'Rule quota' })).toContainText('of 7 rules')
    await expect(page.locator('#rule-quota-errors')).toHaveCount(0)
    await page
      .getByRole('group', { name: 'Products to bypass' })
      .getByRole('checkbox')
      .first()
      .check()
    await expect(page.locator('#rule-products-errors')).toHaveCount(0)
    await pressFromKeyboard(page.getByRole('button', { name: 'Create rule' }))
    await expect(page.getByRole('table', { name: 'Firewall rules' })).toContainText(
      'ip.src eq 192.0.2.7',
    )
    await expect(page.locator('#rule-expression-errors')).toHaveCount(0)

    // A rule on an existing filter with none chosen says so at the filter.
    await page.getByRole('radio', { name: 'Existing filter' }).check()
    await pressFromKeyboard(page.getByRole('button', { name: 'Create rule' }))
    await expectSaidAt(
      page.getByLabel('Filter', { exact: true }),
      'rule-filter-errors',
      'Choose the filter the rule uses.',
    )

    // Use plan default goes back to the plan's quota; pressed again, it says the quota already is.
    const quotaForm = page.getByRole('form', { name: 'Rule quota' })
    const useDefault = page.getByRole('button', { name: 'Use plan default' })
    await pressFromKeyboard(useDefault)
    await expect(quotaForm).toContainText('(plan default)')
    const again = await requestsDuring(page, async () => {
      await pressFromKeyboard(useDefault)
      await expectSaidAt(
        page.getByLabel('New rule quota'),
        'rule-quota-errors',
        /^The rule quota is already the plan's default, \d+ rules\.$/,
      )
    })
    expect(again).toEqual([])
    await expectNoAxeFindings(page)
  })

  test('a refused description is said under the field, outside its label', async ({
    page,
    workbench,
  }) => {
    const zone = await call(workbench, 'POST', '/zones', { name: 'said.example', plan: 'business' })
    await page.goto(`${workbench.ui}#/zones/${zone.id}/firewall-rules`)
    await page.getByRole('textbox', { name: 'Rule expression' }).fill('ip.src eq 192.0.2.8')
    const description = page.getByLabel('Description', { exact: true })
    // The field holds 500 characters; the API's own limit is what is shown here.
    await description.evaluate((input) => input.removeAttribute('maxlength'))
    await description.fill('x'.repeat(501))
    await pressFromKeyboard(page.getByRole('button', { name: 'Create rule' }))
    const refusal = page.locator('#rule-description-errors')
    await expect(refusal).toBeVisible()
    await expect(description).toHaveAccessibleName('Description')
    await expect(description).toHaveAccessibleDescription(await refusal.innerText())
    await expect(page.locator('label #rule-description-errors')).toHaveCount(0)
    await expectNoAxeFindings(page)
  })

  test('Managed rules: Add tag override and Save say what is missing', async ({
    page,
    workbench,
  }) => {
    await zoneExecuting(workbench, 'tuned.example')
    await page.goto(`${workbench.ui}#/managed-rules`)
    await page.getByRole('button', { name: /^Configure / }).click()
    const tag = page.getByLabel('Tag to override')
    await expect(tag.locator('option')).not.toHaveCount(1)
    const add = page.getByRole('button', { name: 'Add tag override' })
    const expression = page.getByRole('textbox', { name: 'Deployment expression' })
    const save = page.getByRole('button', { name: 'Save', exact: true })
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(add)
      await expectSaidAt(tag, 'tag-override-tag-errors', 'Choose the tag to override.')
      await expect(page.locator('#tag-override-change-errors')).toHaveText(
        "Choose the action or the status that the tag's rules take.",
      )
      await tag.selectOption({ index: 1 })
      await expect(page.locator('#tag-override-tag-errors')).toHaveCount(0)
      await pressFromKeyboard(add)
      await expectSaidAt(
        page.getByLabel('Tag action'),
        'tag-override-change-errors',
        "Choose the action or the status that the tag's rules take.",
      )
      await expect(page.getByLabel('Tag status')).toHaveAttribute(
        'aria-describedby',
        'tag-override-change-errors',
      )

      // Save with an expression that has an error says so under it, where the screen held Save.
      await expression.click()
      await page.keyboard.press('ControlOrMeta+a')
      await page.keyboard.type('http.host eq')
      await expect(page.locator('.zw-expression-error-message')).toContainText(
        'a value is missing after `eq`',
      )
      await pressFromKeyboard(save)
      await expectSaidAt(
        expression,
        'deployment-expression-errors',
        "Correct the error in the deployment's expression first.",
      )
    })
    expect(sent).toEqual([])
    await expect(page.getByText('Fix the expression before saving')).toHaveCount(0)
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-managed-rules.png' })

    // Put right, each is done: the override added, the entry point saved.
    await page.getByLabel('Tag status').selectOption('false')
    await expect(page.locator('#tag-override-change-errors')).toHaveCount(0)
    await pressFromKeyboard(add)
    await expect(
      page.getByRole('list', { name: 'Tag overrides' }).getByRole('listitem'),
    ).toHaveCount(1)
    await expression.click()
    await page.keyboard.press('End')
    await page.keyboard.type(' "tuned.example"')
    await expect(page.locator('#deployment-expression-errors')).toHaveCount(0)
    await pressFromKeyboard(save)
    await expect(page.locator('#saved-version')).toContainText('Saved: version')
  })

  test('Simulator: Run and Save sample say what is missing', async ({ page, workbench }) => {
    const zone = await call(workbench, 'POST', '/zones', { name: 'sim.example', plan: 'business' })
    await page.goto(`${workbench.ui}#/zones/${zone.id}/simulator`)
    await page.getByRole('radio', { name: 'JSON' }).check()
    const body = page.getByLabel('JSON body')
    await body.fill('{"log": ')
    const run = page.getByRole('button', { name: 'Run', exact: true })
    const saveSample = page.getByRole('button', { name: 'Save sample' })
    const bodySentence = 'Correct the JSON body first, or choose another body format.'
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(run)
      await expectSaidAt(body, 'json-body-errors', bodySentence)
      // Save sample says both at once, focus on the first: the body, above the name.
      await pressFromKeyboard(saveSample)
      await expectSaidAt(body, 'json-body-errors', bodySentence)
      await expect(page.locator('#sample-name-errors')).toHaveText('Enter a name for the sample.')
      await body.fill('{"log": "admin"}')
      await expect(page.locator('#json-body-errors')).toHaveCount(0)
      await pressFromKeyboard(saveSample)
      await expectSaidAt(
        page.getByLabel('Sample name'),
        'sample-name-errors',
        'Enter a name for the sample.',
      )
    })
    expect(sent).toEqual([])
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-simulator.png' })

    // Put right, each is sent: the sample saved, the request run.
    await page.keyboard.type('Admin login')
    await expect(page.locator('#sample-name-errors')).toHaveCount(0)
    await pressFromKeyboard(saveSample)
    await expect(page.getByRole('button', { name: 'Open Admin login' })).toBeFocused()
    await pressFromKeyboard(run)
    await expect(page.getByRole('region', { name: 'Outcome' })).toBeVisible()
  })

  test('Replay: Replay and Replay in the service with no file say so at the file', async ({
    page,
    workbench,
  }) => {
    const zoneId = await zoneExecuting(workbench, 'replay.example')
    await page.goto(`${workbench.ui}#/zones/${zoneId}/replay`)
    const file = page.getByLabel('Traffic file')
    const sentence = 'Choose a traffic file to replay.'
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(page.getByRole('button', { name: 'Replay', exact: true }))
      await expectSaidAt(file, 'traffic-file-errors', sentence)
      await pressFromKeyboard(page.getByRole('button', { name: 'Replay in the service' }))
      await expectSaidAt(file, 'traffic-file-errors', sentence)
    })
    expect(sent).toEqual([])
    await expect(file).toHaveAttribute('aria-invalid', 'true')
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-replay.png' })

    const request = JSON.stringify({ method: 'GET', url: 'https://replay.example/?n=1' })
    await file.setInputFiles({
      name: 'one.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${request}\n`),
    })
    await expect(page.locator('#traffic-file-errors')).toHaveCount(0)
    await pressFromKeyboard(page.getByRole('button', { name: 'Replay', exact: true }))
    await expect(page.getByRole('heading', { name: 'Outcomes' })).toBeVisible()
  })

  test("Migration: Compare with no traffic says so under the traffic's fields", async ({
    page,
    workbench,
  }) => {
    const zone = await call(workbench, 'POST', '/zones', {
      name: 'compare.example',
      plan: 'business',
      waf_product: 'previous',
    })
    await page.goto(`${workbench.ui}#/zones/${zone.id}/migration/validate`)
    const form = page.getByRole('form', { name: 'Compare on traffic' })
    const compare = form.getByRole('button', { name: 'Compare', exact: true })
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(compare)
      await expectSaidAt(
        form.getByLabel('Traffic file'),
        'compare-traffic-errors',
        'Choose a traffic file, or paste traffic, to compare.',
      )
    })
    expect(sent).toEqual([])
    await expect(form.getByLabel('Traffic', { exact: true })).toHaveAttribute(
      'aria-describedby',
      'compare-traffic-errors',
    )
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-compare.png' })

    await form
      .getByLabel('Traffic', { exact: true })
      .fill(JSON.stringify({ method: 'GET', url: 'https://compare.example/?id=1' }))
    await expect(page.locator('#compare-traffic-errors')).toHaveCount(0)
    await pressFromKeyboard(compare)
    await expect(page.getByRole('table', { name: 'Compare jobs' }).getByRole('row')).toHaveCount(
      2,
      { timeout: 30_000 },
    )
  })

  test('Import: Check again with no zone named says so at the zone', async ({
    page,
    workbench,
  }) => {
    const zone = await call(workbench, 'POST', '/zones', { name: 'tf.example', plan: 'business' })
    const terraform = await fetch(
      `${workbench.api.replace('/client/v4', '/workbench/v1')}/zones/${zone.id}/export?format=terraform&provider=v4`,
      { headers: { authorization: `Bearer ${workbench.token}` } },
    ).then((r) => r.text())
    await page.goto(`${workbench.ui}#/import`)
    await page.getByLabel('Choose a bundle file').setInputFiles({
      name: 'tf.example.tf',
      mimeType: 'text/plain',
      buffer: Buffer.from(terraform),
    })
    await expect(page.getByRole('heading', { name: 'Changes to tf.example' })).toBeVisible()
    const zoneName = page.getByLabel('Zone to import tf.example.tf into')
    await zoneName.fill('')
    const checkAgain = page.getByRole('button', { name: 'Check again' })
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(checkAgain)
      await expectSaidAt(
        zoneName,
        'import-zone-name-errors',
        'Enter the name of the zone to import tf.example.tf into, such as example.com.',
      )
    })
    expect(sent).toEqual([])
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-import.png' })

    await page.keyboard.type('tf.example')
    await expect(page.locator('#import-zone-name-errors')).toHaveCount(0)
    const checked = await requestsDuring(page, async () => {
      await pressFromKeyboard(checkAgain)
      await expect(page.getByRole('heading', { name: 'Changes to tf.example' })).toBeVisible()
    })
    expect(checked).toHaveLength(1)
  })

  test('Production: Pull or Plan with no token names the field, not the schema', async ({
    page,
    workbench,
  }) => {
    await call(workbench, 'POST', '/zones', { name: 'local.example', plan: 'business' })
    await page.goto(`${workbench.ui}#/production`)
    const token = page.getByLabel('API token', { exact: true })
    const sent = await requestsDuring(page, async () => {
      await pressFromKeyboard(page.getByRole('button', { name: 'Pull from remote' }))
      await expectSaidAt(token, 'remote-token-errors', 'Enter the production API token.')
      await pressFromKeyboard(page.getByRole('button', { name: 'Plan', exact: true }))
      await expectSaidAt(token, 'remote-token-errors', 'Enter the production API token.')

      await page.getByRole('radio', { name: 'Email and global key' }).check()
      await pressFromKeyboard(page.getByRole('button', { name: 'Pull from remote' }))
      await expectSaidAt(
        page.getByRole('textbox', { name: 'Email', exact: true }),
        'remote-email-errors',
        'Enter the email of the production account.',
      )
      await expect(page.locator('#remote-key-errors')).toHaveText(
        'Enter the production global API key.',
      )
    })
    expect(sent).toEqual([])
    await expect(page.getByText(/must NOT have/)).toHaveCount(0)
    await expect(page.locator('.screen > .error')).toHaveCount(0)
    await expectNoAxeFindings(page)
    await page.screenshot({ path: 'test-results/e2e/errors-in-place-production.png' })
  })
})
