/** A HAR made by another tool, imported through the UI, shows in Traffic and Waterfall. */
import path from 'node:path';
import fs from 'node:fs';
import { test, expect, snap, FIXTURES } from './fixtures';

test('importing a Chrome HAR shows its rows, details and a waterfall', async ({ page, serve }) => {
  const har = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'chrome.har'), 'utf8'));
  const expected = har.log.entries.length as number;

  await page.goto(serve.url);
  await page.getByTestId('tab-sessions').click();
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  await page.getByTestId('import-input').setInputFiles(path.join(FIXTURES, 'chrome.har'));

  // A single imported file opens right away in Traffic.
  await expect(page.getByTestId('session-banner')).toContainText('chrome');
  await expect(page.getByTestId('traffic-row')).toHaveCount(expected);
  await expect(page.getByTestId('statusbar')).toContainText(`${expected} requests`);
  // The failed request of that page load (status 0) is marked as failed.
  await expect(page.getByTestId('traffic-row').filter({ hasText: '(failed)' })).toHaveCount(1);

  await page.getByTestId('traffic-row').first().click();
  await expect(page.getByTestId('details-general')).toContainText('https://mitmproxy.org/');
  await expect(page.getByTestId('request-headers')).toContainText(':authority');
  await page.getByTestId('details-tab-response').click();
  await expect(page.getByTestId('body-text')).toContainText('<!DOCTYPE html>');
  await snap(page, 'har-traffic-details');

  await page.getByTestId('details-tab-timing').click();
  await expect(page.getByTestId('timing-panel')).toContainText('Waiting (TTFB)');
  await snap(page, 'har-timing');

  await page.getByTestId('tab-waterfall').click();
  await expect(page.getByTestId('waterfall-row')).toHaveCount(expected);
  // Every completed row has coloured phase bars.
  const bars = page.getByTestId('waterfall-row').first().locator('.bar');
  expect(await bars.count()).toBeGreaterThan(1);
  await page.getByTestId('waterfall-row').nth(2).locator('.bar').last().hover();
  await expect(page.getByTestId('waterfall-tooltip')).toContainText('Total');
  await snap(page, 'har-waterfall');

  // Drag to zoom, then reset.
  const axis = page.locator('.wf-axis');
  const box = (await axis.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.1, box.y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 5, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId('waterfall-range')).toContainText(' of ');
  await page.getByTestId('zoom-reset').click();
  await expect(page.getByTestId('waterfall-range')).toContainText('whole range');

  // The session is listed and can be opened again.
  await page.getByTestId('tab-sessions').click();
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await expect(page.getByTestId('session-row')).toContainText(String(expected));
  await snap(page, 'sessions');
});

test('a Firefox HAR opens too, and a broken file gives a clear error', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-sessions').click();
  await page.getByTestId('import-input').setInputFiles(path.join(FIXTURES, 'firefox.har'));
  await expect(page.getByTestId('traffic-row')).toHaveCount(14);
  // A real page load: the waterfall shows the page, then its subresources.
  await page.getByTestId('tab-waterfall').click();
  await expect(page.getByTestId('waterfall-row')).toHaveCount(14);
  // The page's DOMContentLoaded and load from HAR pageTimings, as DevTools draws them.
  await expect(page.getByTestId('waterfall-marker')).toHaveCount(2);
  await page.getByTestId('waterfall-row').nth(13).locator('.bar').first().hover();
  await expect(page.getByTestId('waterfall-tooltip')).toBeVisible();
  await snap(page, 'har-waterfall-firefox');

  await page.getByTestId('tab-sessions').click();
  await page
    .getByTestId('import-input')
    .setInputFiles({ name: 'broken.har', mimeType: 'application/json', buffer: Buffer.from('{"log": {"entries": [') });
  await expect(page.getByTestId('toast-error')).toContainText('broken.har');
  await snap(page, 'sessions-import-error');
});
