/**
 * Lab variants from the Lab view (issue 18): add a variant whose imported rules delay every request of the
 * built-in site by 300 ms, run the smallest lab (one proxy cell, one run, one image) and see the variant cell
 * next to its base cell, slower. And the picker's checks: no proxy cell, a bad name, an invalid rules file
 * (the core's error names the rule and field), remove.
 */
import { test, expect, snap } from './fixtures';
import type { Page } from '@playwright/test';

const DELAY_IMAGES = {
  version: 1,
  rules: [{ id: 'slow-img', match: { path: '/img/**' }, actions: [{ type: 'delay', before: 'response', ms: 300 }] }],
};
const DELAY_ALL = { version: 1, rules: [{ id: 'slow-all', match: {}, actions: [{ type: 'delay', before: 'response', ms: 300 }] }] };

function rulesFile(name: string, content: unknown) {
  return { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(content)) };
}

/** "412 ms" / "1.23 s" → ms. */
function parseMs(text: string): number {
  const m = /([\d.]+)\s*(ms|s)\b/.exec(text);
  if (!m) throw new Error(`not a time: "${text}"`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

async function openLab(page: Page, url: string) {
  await page.goto(url);
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-config')).toBeVisible();
}

test('variants from an imported file and from the current rules run next to their base cell and are slower', async ({ page, serve }) => {
  test.setTimeout(180_000);
  // The app's rules (Rules tab): 300 ms before each image's response.
  await page.goto(serve.url);
  await page.getByTestId('tab-rules').click();
  await page.getByTestId('rules-import-input').setInputFiles(rulesFile('slow-images.json', DELAY_IMAGES));
  await expect(page.getByTestId('rules-view')).toContainText('slow-img');
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-config')).toBeVisible();
  await page.getByTestId('lab-images').fill('1');
  await page.getByTestId('lab-latency').fill('0');
  await page.getByTestId('lab-runs').fill('1');
  await page.getByTestId('cell-direct+h2').uncheck();
  await expect(page.getByTestId('cell-proxy+h2+intercept')).toBeChecked();

  await page.getByTestId('lab-variant-add').click();
  const variant = page.getByTestId('lab-variant');
  await variant.getByTestId('lab-variant-name').fill('slow-all');
  await variant.getByTestId('lab-variant-source').selectOption('file');
  await variant.getByTestId('lab-variant-file').setInputFiles(rulesFile('slow-all.json', DELAY_ALL));
  await expect(variant.getByTestId('lab-variant-file-name')).toHaveText('slow-all.json');
  await page.getByTestId('lab-variant-add').click();
  const mine = page.getByTestId('lab-variant').nth(1);
  await mine.getByTestId('lab-variant-name').fill('slow-img');
  await expect(mine.getByTestId('lab-variant-source')).toHaveValue('current');
  await expect(mine.getByTestId('lab-variant-source')).toContainText('current rules (1 on)');
  await expect(page.getByTestId('lab-variant-problem')).toHaveCount(0);
  // The run's cells: the proxy cell and its variant cells, compared with it.
  await expect(page.getByTestId('lab-plan-cell')).toHaveText([
    /^proxy\+h2\+intercept — baseline/,
    /^proxy\+h2\+intercept~slow-all → compared with proxy\+h2\+intercept/,
    /^proxy\+h2\+intercept~slow-img → compared with proxy\+h2\+intercept/,
  ]);
  await expect(page.getByTestId('lab-config')).toContainText('3 cells × 1 runs = 3 page loads');
  // The baseline dropdown offers the variant cells too.
  await expect(page.getByTestId('lab-baseline').locator('option')).toHaveText([
    'proxy+h2+intercept',
    'proxy+h2+intercept~slow-all',
    'proxy+h2+intercept~slow-img',
  ]);
  await snap(page, 'lab-variants-form');

  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-results')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('lab-failed')).toHaveCount(0);
  await expect(page.getByTestId('lab-table-row')).toHaveCount(3);
  const base = page.locator('[data-testid="lab-table-row"][data-cell="proxy+h2+intercept"]');
  const slow = page.locator('[data-testid="lab-table-row"][data-cell="proxy+h2+intercept~slow-all"]');
  const slowImg = page.locator('[data-testid="lab-table-row"][data-cell="proxy+h2+intercept~slow-img"]');
  for (const row of [base, slow, slowImg]) await expect(row).toContainText('1/1');
  const loadMs = async (row: typeof base) => parseMs(await row.locator('td').nth(3).innerText());
  const [baseMs, slowMs, slowImgMs] = [await loadMs(base), await loadMs(slow), await loadMs(slowImg)];
  // Delays are floors no load on the machine lowers: the page and then its image wait 300 ms each with
  // slow-all, the image 300 ms with slow-img; and gaps no noise between loads side by side closes.
  expect(slowMs).toBeGreaterThanOrEqual(600);
  expect(slowImgMs).toBeGreaterThanOrEqual(300);
  expect(slowMs).toBeGreaterThan(baseMs);
  expect(slowImgMs).toBeGreaterThan(baseMs);
  await slow.scrollIntoViewIfNeeded();
  await snap(page, 'lab-variants-results');
});

test('the picker checks names and proxy cells, and shows the core refusing an invalid rules file', async ({ page, serve }) => {
  await openLab(page, serve.url);
  await page.getByTestId('cell-proxy+h2+intercept').uncheck();
  await page.getByTestId('lab-variant-add').click();
  const variant = page.getByTestId('lab-variant');
  // The app has no rules switched on yet: "current rules" would run the proxy cell again unchanged.
  await expect(variant.getByTestId('lab-variant-source')).toContainText('current rules (0 on)');
  await expect(page.getByTestId('lab-variant-problem')).toContainText('no rule is switched on');
  await expect(page.getByTestId('lab-variant-no-proxy')).toBeVisible();
  await expect(page.getByTestId('lab-run')).toBeDisabled();

  await page.getByTestId('cell-proxy+h2+intercept').check();
  await expect(page.getByTestId('lab-variant-no-proxy')).toHaveCount(0);
  await variant.getByTestId('lab-variant-name').fill('');
  await expect(page.getByTestId('lab-variant-problem')).toHaveText('give the variant a name');
  await expect(page.getByTestId('lab-run')).toBeDisabled();
  await variant.getByTestId('lab-variant-name').fill('Bad Name');
  await expect(page.getByTestId('lab-variant-problem')).toContainText('1-32 lowercase letters');
  await expect(page.getByTestId('lab-run')).toBeDisabled();

  await variant.getByTestId('lab-variant-name').fill('late');
  await variant.getByTestId('lab-variant-source').selectOption('file');
  await expect(page.getByTestId('lab-variant-problem')).toHaveText('import a rules file');
  await expect(page.getByTestId('lab-run')).toBeDisabled();
  const bad = { version: 1, rules: [{ id: 'too-late', match: {}, actions: [{ type: 'delay', before: 'later', ms: 1 }] }] };
  await variant.getByTestId('lab-variant-file').setInputFiles(rulesFile('late.json', bad));
  await expect(page.getByTestId('lab-run')).toBeEnabled();
  // A second variant with the same name: both say so, and Run waits.
  await page.getByTestId('lab-variant-add').click();
  await page.getByTestId('lab-variant').nth(1).getByTestId('lab-variant-name').fill('late');
  await expect(page.getByTestId('lab-variant-problem')).toHaveText(['the name "late" is used twice', 'the name "late" is used twice']);
  await expect(page.getByTestId('lab-run')).toBeDisabled();
  await page.getByTestId('lab-variant').nth(1).getByTestId('lab-variant-remove').click();
  await expect(page.getByTestId('lab-run')).toBeEnabled();
  await page.getByTestId('lab-run').click();
  const error = page.getByTestId('lab-variant-error');
  await expect(error).toContainText('variant "late"');
  await expect(error).toContainText('rules[0] (id "too-late"): actions[0].before must be one of');
  await expect(page.getByTestId('lab-progress')).toHaveCount(0);
  await snap(page, 'lab-variants-invalid');

  await variant.getByTestId('lab-variant-remove').click();
  await expect(page.getByTestId('lab-variant')).toHaveCount(0);
  await expect(page.getByTestId('lab-variant-error')).toHaveCount(0);
  await expect(page.getByTestId('lab-plan-cell')).toHaveCount(2);
});
