/** A small lab run from the UI: 2 cells × 2 runs on the built-in test site, then table and charts. */
import { test, expect, snap } from './fixtures';

test('a small lab run completes and shows the comparison table, charts and waterfalls', async ({ page, serve }) => {
  test.setTimeout(180_000);
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-config')).toBeVisible();
  await expect(page.getByTestId('lab-unavailable')).toHaveCount(0);

  await page.getByTestId('lab-images').fill('6');
  await page.getByTestId('lab-latency').fill('10');
  await page.getByTestId('lab-runs').fill('2');
  // The defaults, as a new user would press Run: proxy+h1+intercept (baseline) and the same
  // with Nagle on — real Chromium through the real intercepting proxy.
  await expect(page.getByTestId('cell-proxy+h1+intercept')).toBeChecked();
  await expect(page.getByTestId('cell-proxy+h1+intercept+nagle')).toBeChecked();

  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-progress')).toBeVisible();
  await snap(page, 'lab-running');

  await expect(page.getByTestId('lab-results')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('lab-failed')).toHaveCount(0);
  await expect(page.getByTestId('lab-table-row')).toHaveCount(2);
  await expect(page.getByTestId('lab-table')).toContainText('baseline');
  await expect(page.getByTestId('lab-table')).toContainText('proxy+h1+intercept+nagle');
  // Charts: one bar per cell in each.
  await expect(page.getByTestId('lab-chart-loadMs').locator('.recharts-bar-rectangle')).toHaveCount(2);
  await expect(page.getByTestId('lab-chart-ttfbMedianMs').locator('.recharts-bar-rectangle')).toHaveCount(2);
  // Side-by-side waterfalls of the median runs: the page and its 6 images (favicon may add one).
  await expect(page.getByTestId('lab-wf-0-row').first()).toBeVisible({ timeout: 20_000 });
  expect(await page.getByTestId('lab-wf-0-row').count()).toBeGreaterThanOrEqual(7);
  expect(await page.getByTestId('lab-wf-1-row').count()).toBeGreaterThanOrEqual(7);
  await snap(page, 'lab-results');
  await page.getByTestId('lab-table').scrollIntoViewIfNeeded();
  await page.getByTestId('lab-wf-0').scrollIntoViewIfNeeded();
  await snap(page, 'lab-waterfalls');
});

test('a lab run can be cancelled', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await page.getByTestId('cell-proxy+h1+intercept').uncheck();
  await page.getByTestId('cell-proxy+h1+intercept+nagle').uncheck();
  await page.getByTestId('cell-direct+h2').check();
  await page.getByTestId('lab-images').fill('3');
  await page.getByTestId('lab-runs').fill('20');
  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-progress')).toBeVisible();
  await page.getByTestId('lab-cancel').click();
  await expect(page.getByTestId('lab-failed')).toContainText('cancelled', { timeout: 60_000 });
  await expect(page.getByTestId('lab-progress')).toHaveCount(0);
  await expect(page.getByTestId('lab-run')).toBeEnabled();
  await expect(page.getByTestId('lab-no-runs').or(page.getByTestId('lab-chart-loadMs'))).toBeVisible();
  await snap(page, 'lab-cancelled');
});
