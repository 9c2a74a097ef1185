/**
 * Issue 16 in Chromium: a stored lab run with Nagle stalls and browser/proxy breakdowns
 * (the NAGLE_STORY fixture, written as a run directory like lab-history.spec.ts does)
 * shows them per cell in the Lab view, marks the naive-relay cells, and the exported
 * HTML report has the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, snap, ARTIFACTS } from './fixtures';
import { fakeResult, NAGLE_STORY } from '../proxy/test/lab/fake-result';
import { writeRun } from '../proxy/test/lab/write-run';

test('a lab run shows stalls and the browser/proxy breakdown per cell; naive-relay cells are marked', async ({ page, serve }) => {
  writeRun(
    path.join(serve.dataDir, 'lab', '2026-11-24T09-00-00-000Z-1'),
    fakeResult(NAGLE_STORY, { startedAt: '2026-11-24T09:00:00.000Z', withHars: true }),
  );
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-results')).toBeVisible();

  const card = page.getByTestId('lab-breakdown');
  const row = (cell: string) => card.locator(`[data-breakdown-cell="${cell}"]`);
  await expect(card.getByTestId('lab-breakdown-row')).toHaveCount(5);
  await expect(card.getByTestId('lab-breakdown-legend')).toHaveText(
    /browser queue.*client leg.*proxy.*upstream.*back.*striped: naive relay/,
  );

  // Stalls: median (range) per run and the median wall-clock time stalled.
  const slow = row('proxy+h1+intercept+naive+nagle');
  await expect(slow.getByTestId('lab-stalls')).toHaveText('189 (184–194)');
  await expect(slow.getByTestId('lab-stalled')).toHaveText('1.51 s');
  await expect(row('proxy+h1+intercept').getByTestId('lab-stalled')).toHaveText('0 ms');
  await expect(row('proxy+h1+intercept').getByTestId('lab-stalls')).toHaveText('0 (0–2)');
  await expect(row('direct+h1').getByTestId('lab-stalls')).toHaveText('–');
  // Counted without the wall-clock time (results written before stallWallMs): the count, no time.
  await expect(row('proxy+h1+tunnel').getByTestId('lab-stalls')).toHaveText('0');
  await expect(row('proxy+h1+tunnel').getByTestId('lab-stalled')).toHaveText('–');

  // Breakdown: five parts; the Nagle-on naive cell's time goes to "back" (the held bytes reach the browser late).
  await expect(slow.getByTestId('lab-breakdown-values')).toHaveText(
    'browser queue 2.0 ms · client leg 6.0 ms · proxy 2.0 ms · upstream 22.0 ms · back 44.0 ms',
  );
  await expect(slow.getByTestId('lab-breakdown-bar')).toContainText('sum 76.0 ms; requests matched: 15/15 in 5 runs');
  const width = async (cell: string, part: string) => (await row(cell).locator(`[data-part="${part}"]`).boundingBox())!.width;
  expect(await width('proxy+h1+intercept+naive+nagle', 'back')).toBeGreaterThan(await width('proxy+h1+intercept+naive+nagle', 'upstream'));
  // One scale for all cells: the naive Nagle-off cell's "back" (3 ms) is far narrower than the Nagle-on one's (44 ms).
  expect(await width('proxy+h1+intercept+naive', 'back')).toBeLessThan((await width('proxy+h1+intercept+naive+nagle', 'back')) / 5);
  await expect(row('direct+h1').getByTestId('lab-no-breakdown')).toHaveText(
    'No breakdown: no alignment was made — a direct cell has no proxy HAR to align the browser’s with.',
  );
  await expect(row('proxy+h1+tunnel').getByTestId('lab-no-breakdown')).toContainText('a tunnel hides the requests inside TLS');

  // Who used the CPU per load (lab/cpu-use.ts), under the cells that measured it.
  await expect(row('proxy+h1+intercept').getByTestId('lab-cpu')).toHaveText(
    'CPU per load: browser 1850 ms (waited 950 ms for a core) · proxy 182 ms (main thread 122 ms, waited 450 ms for a core) · ' +
      'test site 50 ms (main thread 31 ms, waited 11 ms for a core)',
  );
  await expect(row('direct+h1').getByTestId('lab-cpu')).toContainText('browser 1820 ms');
  await expect(card.getByTestId('lab-cpu')).toHaveCount(2);
  // The priority the browsers ran at, since the waits depend on it (this results file predates the default: normal).
  await expect(card.getByTestId('lab-browser-priority')).toHaveText('browsers at normal priority');

  // Naive-relay cells: tagged in both tables, striped in the charts; the others not.
  const mainRow = (cell: string) => page.locator(`[data-testid="lab-table-row"][data-cell="${cell}"]`);
  await expect(mainRow('proxy+h1+intercept+naive+nagle').getByTestId('lab-naive')).toHaveText('naive relay');
  await expect(mainRow('proxy+h1+intercept').getByTestId('lab-naive')).toHaveCount(0);
  await expect(card.getByTestId('lab-naive')).toHaveCount(2);
  await expect(slow.locator('.stack.naive-stripes')).toHaveCount(1);
  await expect(row('proxy+h1+intercept').locator('.stack.naive-stripes')).toHaveCount(0);
  for (const metric of ['loadMs', 'ttfbMedianMs']) {
    const chart = page.getByTestId(`lab-chart-${metric}`);
    await expect(chart.locator('.recharts-bar-rectangle path')).toHaveCount(5);
    await expect(chart.locator('.recharts-bar-rectangle path[fill="url(#lab-naive-stripes)"]')).toHaveCount(2);
    await expect(chart).toContainText('striped: naive relay');
  }

  await page.getByTestId('lab-view').evaluate((el) => (el.scrollTop = 0));
  await page.getByTestId('lab-chart-loadMs').scrollIntoViewIfNeeded();
  await snap(page, 'lab-breakdown-charts');
  await card.scrollIntoViewIfNeeded();
  await snap(page, 'lab-breakdown');

  // The exported report has the same figures.
  const download = page.waitForEvent('download');
  await page.getByTestId('lab-export-report').click();
  const file = path.join(ARTIFACTS, 'lab-breakdown-report.html');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await (await download).saveAs(file);
  const html = fs.readFileSync(file, 'utf8');
  expect(html).toContain('<h2>Stalls and where the browser’s time went</h2>');
  expect(html).toContain('189 (184–194)');
  expect(html).toContain('No breakdown: no alignment was made (direct cell)');
  expect(html).toContain('CPU per load: browser 1850 ms (waited 950 ms for a core) · proxy 182 ms');
  expect(html).toContain('<th>Browser priority</th><td>browsers at normal priority (--browser-nice)</td>');
  const report = await page.context().newPage();
  await report.goto(`file://${file}`);
  await report.locator('svg.stacked').scrollIntoViewIfNeeded();
  await report.screenshot({ path: path.join(ARTIFACTS, 'lab-breakdown-report.png') });
  await report.close();
});
