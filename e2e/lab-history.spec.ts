/**
 * Issue 15 items 4–7 in Chromium: the baseline dropdown, the runs default and
 * min-p hint, TTFB verdicts and noisy flags, the run history (reload, open,
 * compare, delete, damaged runs) and the exported HTML report.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, snap, ARTIFACTS } from './fixtures';
import { fakeResult, WALKTHROUGH } from '../proxy/test/lab/fake-result';
import { writeRun } from '../proxy/test/lab/write-run';

test('the baseline dropdown offers only ticked cells, and the runs field shows the smallest p it can reach', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  const baseline = page.getByTestId('lab-baseline');
  const options = () => baseline.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  // Defaults shared with the CLI: 5 runs per cell, whose smallest p (2/252) is below 0.05.
  await expect(page.getByTestId('lab-runs')).toHaveValue('5');
  await expect(page.getByTestId('lab-min-p')).toHaveText('smallest p possible: 0.0079 (< 0.05)');
  await expect(page.getByTestId('lab-runs')).toHaveAttribute('max', '1000');
  await expect(page.getByTestId('lab-images')).toHaveValue('1000');
  expect(await options()).toEqual(['direct', 'direct+h2', 'proxy+h2+intercept']);
  await expect(page.getByTestId('lab-baseline-plan')).toContainText('proxy+h2+intercept → compared with direct+h2');

  // The walkthrough: pick a baseline cell, then untick it. The dropdown must not keep (or show) a cell that is not run.
  await page.getByTestId('cell-proxy+h1+intercept').check();
  await page.getByTestId('cell-proxy+h1+intercept+nagle').check();
  await baseline.selectOption('proxy+h1+intercept');
  await page.getByTestId('cell-direct+h2').uncheck();
  await page.getByTestId('cell-proxy+h1+intercept').uncheck();
  expect(await options()).toEqual(['proxy+h2+intercept', 'proxy+h1+intercept+nagle']);
  await expect(baseline).toHaveValue('proxy+h2+intercept');
  await expect(page.getByTestId('lab-baseline-plan')).toContainText('proxy+h1+intercept+nagle → compared with proxy+h2+intercept');

  // 3 runs can never be significant at 0.05: the hint says so.
  await page.getByTestId('lab-runs').fill('3');
  await expect(page.getByTestId('lab-min-p')).toContainText('0.10 — never significant at 0.05; use at least 4 runs');
  await page.getByTestId('lab-runs').fill('0');
  await expect(page.getByTestId('lab-run')).toBeDisabled();
  await page.getByTestId('lab-runs').fill('4');
  await expect(page.getByTestId('lab-min-p')).toHaveText('smallest p possible: 0.029 (< 0.05)');
  await expect(page.getByTestId('lab-run')).toBeEnabled();

  // What is sent is what is shown: the API would refuse anything else (item 4).
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/startLab'));
  await page.getByTestId('lab-runs').fill('1');
  await page.getByTestId('lab-images').fill('1');
  await page.getByTestId('lab-run').click();
  expect((await sent).postDataJSON()).toMatchObject({
    baseline: 'proxy+h2+intercept',
    cells: ['proxy+h2+intercept', 'proxy+h1+intercept+nagle'],
    runs: 1,
  });
  await snap(page, 'lab-form-baseline');
  await page
    .getByTestId('lab-cancel')
    .click()
    .catch(() => undefined);
  await expect(page.getByTestId('lab-progress')).toHaveCount(0, { timeout: 60_000 });
});

test('history: past runs survive a reload, open, compare cell by cell, delete; damaged ones say why', async ({ page, serve }) => {
  const lab = path.join(serve.dataDir, 'lab');
  writeRun(
    path.join(lab, '2026-11-23T09-00-00-000Z-1'),
    fakeResult(WALKTHROUGH, { startedAt: '2026-11-23T09:00:00.000Z', withHars: true }),
  );
  const faster = WALKTHROUGH.map((c) =>
    c.cell === 'proxy+h2+intercept' ? { ...c, loadMs: [1000, 1005, 995, 1010, 990], ttfbMs: [80, 81, 79, 82, 78] } : c,
  );
  writeRun(path.join(lab, '2026-11-23T11-00-00-000Z-2'), fakeResult(faster, { startedAt: '2026-11-23T11:00:00.000Z', withHars: true }));
  fs.mkdirSync(path.join(lab, '2026-11-23T12-00-00-000Z-3'));
  fs.writeFileSync(path.join(lab, '2026-11-23T12-00-00-000Z-3', 'results.json'), '{"schemaVersion": 1, "cells": [');

  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  const rows = page.getByTestId('lab-history-row');
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('lab-history-damaged')).toContainText('Damaged:');
  await expect(page.getByTestId('lab-history-damaged')).toContainText('results.json is not valid JSON (cut short?)');
  await expect(page.getByTestId('lab-history-damaged')).not.toContainText(serve.dataDir);
  await expect(rows.nth(2)).toContainText('proxy+h2+intercept: TTFB slower than direct+h2 (large)');
  await expect(rows.nth(2)).toContainText('noisy: proxy+h2+intercept');
  // The newest good run is open without asking (it used to say "No lab run yet").
  await expect(page.getByTestId('lab-results')).toBeVisible();
  await expect(page.getByTestId('lab-empty')).toHaveCount(0);

  // Open the older run: TTFB 486 vs 75 ms is a verdict, and the noisy proxy cell is flagged though it is no baseline.
  await rows.nth(2).getByTestId('lab-history-open').click();
  const proxyRow = page.locator('[data-testid="lab-table-row"][data-cell="proxy+h2+intercept"]');
  await expect(proxyRow.getByTestId('lab-ttfb-verdict')).toHaveText('● slower (large)');
  await expect(proxyRow.getByTestId('lab-ttfb-verdict').locator('span')).toHaveAttribute('title', 'slower than direct+h2 (large)');
  await expect(proxyRow).toContainText('direct+h2'); // "Compared with"
  await expect(proxyRow.getByTestId('lab-load-verdict')).toHaveText('not significant (δ negligible)');
  await expect(proxyRow.getByTestId('lab-noisy')).toBeVisible();
  await expect(proxyRow).toContainText('×6.48');
  await expect(page.getByTestId('lab-wf-0-row').first()).toBeVisible();
  await page.getByTestId('lab-results').scrollIntoViewIfNeeded();
  await page.getByTestId('lab-view').evaluate((el) => (el.scrollTop = 0));
  await snap(page, 'lab-results-ttfb-noisy');

  // Compare the two good runs of the same target.
  await rows.nth(1).getByTestId('lab-history-pick').check();
  await rows.nth(2).getByTestId('lab-history-pick').check();
  await page.getByTestId('lab-compare-runs').click();
  const cmp = page.getByTestId('lab-run-compare');
  await expect(cmp).toBeVisible();
  await expect(page.getByTestId('lab-compare-row')).toHaveCount(4);
  const ttfb = page.getByTestId('lab-compare-row').nth(3);
  await expect(ttfb).toContainText('TTFB');
  await expect(ttfb).toContainText('486 ms');
  await expect(ttfb).toContainText('faster (large)');
  await expect(ttfb).toContainText('0.008');
  await page.getByTestId('lab-history').scrollIntoViewIfNeeded();
  await snap(page, 'lab-history');
  await cmp.scrollIntoViewIfNeeded();
  await snap(page, 'lab-compare');

  // Reload: the history (and an open run) are still there.
  await page.reload();
  await page.getByTestId('tab-lab').click();
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('lab-results')).toBeVisible();

  // Delete the damaged run.
  page.once('dialog', (d) => d.accept());
  await rows.nth(0).getByTestId('lab-history-delete').click();
  await expect(rows).toHaveCount(2);
  expect(fs.existsSync(path.join(lab, '2026-11-23T12-00-00-000Z-3'))).toBe(false);
});

test('a real run is in the history after a reload, and "Export report" writes an offline HTML file', async ({ page, serve, browser }) => {
  test.setTimeout(180_000);
  await page.goto(serve.url);
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-history-empty')).toBeVisible();
  await page.getByTestId('lab-images').fill('3');
  await page.getByTestId('lab-runs').fill('2');
  await page.getByTestId('lab-run').click();
  await expect(page.getByTestId('lab-results')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('lab-history-row')).toHaveCount(1);

  await page.reload();
  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-results')).toBeVisible();
  await expect(page.getByTestId('lab-table-row')).toHaveCount(2);
  await expect(page.getByTestId('lab-history-row')).toHaveCount(1);
  // A real run's intercepting cell is aligned: its breakdown and stall count show; the direct cell says why it has none.
  const breakdown = (cell: string) => page.locator(`[data-breakdown-cell="${cell}"]`);
  await expect(breakdown('proxy+h2+intercept').getByTestId('lab-breakdown-values')).toContainText('upstream');
  await expect(breakdown('proxy+h2+intercept').getByTestId('lab-stalls')).toHaveText(/^\d/);
  await expect(breakdown('direct+h2').getByTestId('lab-no-breakdown')).toContainText('a direct cell');

  const download = page.waitForEvent('download');
  await page.getByTestId('lab-export-report').click();
  const file = path.join(ARTIFACTS, 'lab-report.html');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await (await download).saveAs(file);
  const html = fs.readFileSync(file, 'utf8');
  expect(html).not.toMatch(/<script|<link|@import|url\(|\b(src|href)=/i);
  expect(html).toContain('<svg class="wf"');

  // Opened offline in Chromium: nothing is fetched, the charts and waterfalls render.
  const ctx = await browser.newContext({ offline: true, viewport: { width: 1200, height: 900 } });
  const report = await ctx.newPage();
  const requests: string[] = [];
  report.on('request', (r) => requests.push(r.url()));
  await report.goto(`file://${file}`);
  await expect(report.locator('h1')).toContainText('Netlens lab report');
  // Load time, TTFB, stalls per run (the proxy cell counts them), and the breakdown (stacked).
  await expect(report.locator('svg.chart')).toHaveCount(4);
  await expect(report.locator('svg.chart.stacked')).toContainText('No breakdown: no alignment was made (direct cell)');
  await expect(report.locator('svg.wf')).toHaveCount(2);
  expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  await report.screenshot({ path: path.join(ARTIFACTS, 'lab-report-top.png') });
  await report.locator('svg.wf').first().scrollIntoViewIfNeeded();
  await report.screenshot({ path: path.join(ARTIFACTS, 'lab-report-waterfall.png') });
  await ctx.close();

  // The intercepting cell's median run opens as a session in Connections: its proxy-side HAR carries the socket timeline.
  await page.getByTestId('lab-compare-1').selectOption('proxy+h2+intercept');
  await expect(page.getByTestId('lab-open-connections-0')).toHaveCount(0); // direct+h2: no proxy side
  await page.getByTestId('lab-open-connections-1').click();
  await expect(page.getByTestId('connections-view')).toBeVisible();
  await expect(page.getByTestId('session-banner')).toContainText('proxy+h2+intercept (proxy side)');
  await expect(page.getByTestId('connection-lane').first()).toBeVisible();
  expect(await page.getByTestId('connection-lane').count()).toBeGreaterThanOrEqual(2); // client and upstream legs
  await page.screenshot({ path: path.join(ARTIFACTS, 'lab-run-connections.png') });
  // Asked again, the same session opens (no second copy in Sessions).
  await page.getByTestId('tab-lab').click();
  await page.getByTestId('lab-compare-1').selectOption('proxy+h2+intercept');
  await page.getByTestId('lab-open-connections-1').click();
  await expect(page.getByTestId('connections-view')).toBeVisible();
  await page.getByTestId('tab-sessions').click();
  await expect(page.getByTestId('session-row').filter({ hasText: '(proxy side)' })).toHaveCount(1);
});
