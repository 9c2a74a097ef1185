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
  // The defaults, as a new user would press Run: direct+h2 (baseline) and the intercepting
  // HTTP/2 proxy — real Chromium through the real intercepting proxy.
  await expect(page.getByTestId('cell-direct+h2')).toBeChecked();
  await expect(page.getByTestId('cell-proxy+h2+intercept')).toBeChecked();

  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-progress')).toBeVisible();
  await snap(page, 'lab-running');

  await expect(page.getByTestId('lab-results')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('lab-failed')).toHaveCount(0);
  await expect(page.getByTestId('lab-table-row')).toHaveCount(2);
  await expect(page.getByTestId('lab-table')).toContainText('baseline');
  await expect(page.getByTestId('lab-table')).toContainText('proxy+h2+intercept');
  // Load time and TTFB each get a verdict against the baseline (2 runs: never significant, and it says so).
  const proxyRow = page.locator('[data-testid="lab-table-row"][data-cell="proxy+h2+intercept"]');
  await expect(proxyRow).toContainText('direct+h2'); // compared with
  await expect(proxyRow.getByTestId('lab-ttfb-verdict')).toContainText('not significant');
  await expect(proxyRow.getByTestId('lab-load-verdict')).toContainText('not significant');
  // Charts: one bar per cell in each.
  await expect(page.getByTestId('lab-chart-loadMs').locator('.recharts-bar-rectangle')).toHaveCount(2);
  await expect(page.getByTestId('lab-chart-ttfbMedianMs').locator('.recharts-bar-rectangle')).toHaveCount(2);
  // Side-by-side waterfalls of the median runs: the page and its 6 images (favicon may add one).
  await expect(page.getByTestId('lab-wf-0-row').first()).toBeVisible({ timeout: 20_000 });
  expect(await page.getByTestId('lab-wf-0-row').count()).toBeGreaterThanOrEqual(7);
  expect(await page.getByTestId('lab-wf-1-row').count()).toBeGreaterThanOrEqual(7);
  await snap(page, 'lab-results');
  // Who used the CPU per load (Linux: the lab reads the scheduler's accounting): the browser in both cells, the proxy in its own.
  if (process.platform === 'linux') {
    const cpu = (cell: string) => page.locator(`[data-breakdown-cell="${cell}"]`).getByTestId('lab-cpu');
    await expect(cpu('direct+h2')).toContainText(/CPU per load: browser \d+ ms/);
    await expect(cpu('direct+h2')).not.toContainText('proxy');
    await expect(cpu('proxy+h2+intercept')).toContainText(/· proxy [\d.]+ ms \(main thread [\d.]+ ms, waited [\d.]+ ms for a core\)/);
  }
  await page.getByTestId('lab-table').scrollIntoViewIfNeeded();
  await page.getByTestId('lab-wf-0').scrollIntoViewIfNeeded();
  await snap(page, 'lab-waterfalls');
});

test('a lab run can be cancelled', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await page.getByTestId('cell-proxy+h2+intercept').uncheck();
  await expect(page.getByTestId('cell-direct+h2')).toBeChecked();
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

test('the proxy warm-up before the first run shows in the progress, and cancelling stops it', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('cell-proxy+h2+intercept')).toBeChecked();
  // A page big enough that warming up takes seconds (ten loads of 200 images through the proxy).
  await page.getByTestId('lab-images').fill('200');
  await page.getByTestId('lab-runs').fill('2');
  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-progress')).toContainText('warming up the proxy (unmeasured loads)', { timeout: 30_000 });
  await expect(page.getByTestId('lab-progress')).toContainText('0 / 4 page loads');
  await snap(page, 'lab-warm-up');
  await page.getByTestId('lab-cancel').click();
  await expect(page.getByTestId('lab-failed')).toContainText('cancelled', { timeout: 60_000 });
  await expect(page.getByTestId('lab-progress')).toHaveCount(0);
});
