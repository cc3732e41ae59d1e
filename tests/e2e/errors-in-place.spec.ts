// Errors where they belong: an expression's error is said in words under the editor, with its
// span underlined; the API's refusal is shown at the field it points at, not at the top of the
// page; an action the zone's plan cannot use is offered disabled with its reason; Managed rules
// does not offer Deploy to a zone still on the previous product, and links to its migration
// instead. A form's submit is not disabled for what is typed (a disabled button cannot say why):
// pressed from the keyboard with a field that cannot be sent, it sends nothing, says why at that
// field (named by its aria-describedby) and moves focus there, on Zones, Firewall rules (rule,
// filter, quota) and Production, at 1024×700 with nothing for axe to find.

import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'

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

test('Managed rules holds Save while a deployment expression has an error', async ({
  page,
  workbench,
}) => {
  const zone = await call(workbench, 'POST', '/zones', { name: 'tuned.example', plan: 'business' })
  await call(
    workbench,
    'PUT',
    `/zones/${zone.id}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    {
      rules: [
        {
          action: 'execute',
          expression: 'true',
          action_parameters: { id: 'efb7b8c949ac4650a09736fc376e9aee' },
        },
      ],
    },
  )
  await page.goto(`${workbench.ui}#/managed-rules`)
  await page.getByRole('button', { name: /^Configure / }).click()
  await page.getByRole('textbox', { name: 'Deployment expression' }).click()
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.type('http.host eq')
  await expect(page.locator('.zw-expression-error-message')).toContainText(
    'a value is missing after `eq`',
  )
  const save = page.getByRole('button', { name: 'Save', exact: true })
  await expect(save).toBeDisabled()
  await expect(page.getByText('Fix the expression before saving')).toBeVisible()
  await page.keyboard.type(' "tuned.example"')
  await expect(save).toBeEnabled()
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
async function expectSaidAt(field: Locator, errorsId: string, sentence: string) {
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

/** The requests the page sends to the API (or the bridge) while `work` runs. */
async function requestsDuring(page: Page, work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = []
  const record = (request: { method: () => string; url: () => string }) => {
    if (request.method() !== 'GET') sent.push(`${request.method()} ${request.url()}`)
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
