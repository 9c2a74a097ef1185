/** Sessions: save the live capture, open, rename, export, delete; drag-and-drop import. */
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, snap, FIXTURES } from './fixtures';
import { origin, viaProxy } from './origin';

test('the live capture saved as a session can be opened, renamed, exported and deleted', async ({ page, serve }) => {
  const site = await origin();
  try {
    await page.goto(serve.url);
    for (const p of ['/api/items.json', '/pixel.png', '/missing']) await viaProxy(serve.proxyUrl!, `${site.url}${p}`);
    await expect(page.getByTestId('traffic-row')).toHaveCount(3);

    await page.getByTestId('save-session').click();
    await page.getByTestId('name-input').fill('Checkout flow');
    await snap(page, 'save-session-dialog');
    await page.getByTestId('name-confirm').click();
    await expect(page.getByTestId('toast-ok').filter({ hasText: 'Saved "Checkout flow"' })).toBeVisible();

    await page.getByTestId('tab-sessions').click();
    await expect(page.getByTestId('session-row')).toHaveCount(1);
    const row = page.getByTestId('session-row').first();
    await expect(row).toContainText('Checkout flow');
    await expect(row).toContainText('3');
    await row.getByText('Rename').click();
    await row.locator('input').fill('Checkout flow (baseline)');
    await row.getByText('Save').click();
    await expect(page.getByTestId('session-row')).toContainText('Checkout flow (baseline)');

    const download = page.waitForEvent('download');
    await page.getByTestId('session-row').getByText('Export HAR').click();
    const file = await (await download).path();
    const har = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(har.log.entries).toHaveLength(3);
    expect(har.log.entries.map((e: { response: { status: number } }) => e.response.status).sort()).toEqual([200, 200, 404]);

    await page.getByTestId('session-open').click();
    await expect(page.getByTestId('session-banner')).toContainText('Checkout flow (baseline)');
    await expect(page.getByTestId('traffic-row')).toHaveCount(3);

    await page.getByTestId('tab-sessions').click();
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('session-row').getByText('Delete').click();
    await expect(page.getByTestId('sessions-empty')).toBeVisible();
  } finally {
    await site.close();
  }
});

test('a HAR dropped on the Sessions view is imported and opened', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-sessions').click();
  const text = fs.readFileSync(path.join(FIXTURES, 'chrome.har'), 'utf8');
  const dataTransfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped.har', { type: 'application/json' }));
    return dt;
  }, text);
  await page.getByTestId('sessions-view').dispatchEvent('drop', { dataTransfer });
  await expect(page.getByTestId('session-banner')).toContainText('dropped');
  await expect(page.getByTestId('traffic-row')).toHaveCount(3);
});
