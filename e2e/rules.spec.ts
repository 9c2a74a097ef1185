/**
 * Rules in the app: "Mock this response" from a request in Traffic makes a mock rule,
 * the proxy answers with it (marked in Traffic as not from the network), the Rules view
 * counts its hits, and switching it off lets the origin answer again. Also: the Traffic row context
 * menu's one-clicks, and a mock answering an https:// page Chromium loads through the intercepting proxy.
 */
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { chromium } from '@playwright/test';
import { test, expect, snap } from './fixtures';
import { CHROMIUM_ARGS } from './playwright.config';
import { origin } from './origin';

/** A GET through the proxy in absolute form; the body decoded as the client would. */
function getViaProxy(proxyUrl: string, url: string): Promise<{ status: number; body: string }> {
  const p = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: p.hostname, port: p.port, path: url, headers: { host: new URL(url).host, 'user-agent': 'netlens-e2e' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const body = res.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, body: body.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('mock a response from Traffic, see it served and marked, switch it off and see the origin again', async ({ page, serve }) => {
  expect(serve.proxyUrl, serve.output()).toBeTruthy();
  const site = await origin();
  const items = `${site.url}/api/items.json`;
  try {
    await page.goto(serve.url);
    await page.getByTestId('tab-rules').click();
    await expect(page.getByTestId('rules-empty')).toBeVisible();

    const first = await getViaProxy(serve.proxyUrl!, items);
    expect(first.body).toContain('"second"');

    // Traffic → the request → Mock this response: Rules opens with the rule prefilled from it.
    await page.getByTestId('tab-traffic').click();
    await page.getByTestId('traffic-row').filter({ hasText: 'items.json' }).click();
    await page.getByTestId('mock-this').click();
    await expect(page.getByTestId('rule-editor')).toBeVisible();
    await expect(page.getByTestId('rule-method')).toHaveValue('GET');
    await expect(page.getByTestId('rule-host')).toHaveValue('127.0.0.1');
    await expect(page.getByTestId('rule-path')).toHaveValue('/api/items.json');
    await expect(page.getByTestId('rule-mock-status')).toHaveValue('200');
    await expect(page.getByTestId('rule-mock-headers')).toHaveValue(/content-type: application\/json/);
    await expect(page.getByTestId('rule-mock-headers')).not.toHaveValue(/content-encoding/);
    await expect(page.getByTestId('rule-mock-body')).toHaveValue(/"second"/);
    await page.getByTestId('rule-mock-body').fill('{"items":[],"mocked":true}');
    await page.getByTestId('rule-name').fill('empty items');
    await snap(page, 'rules-mock-this-editor');
    await page.getByTestId('rule-save').click();
    await expect(page.getByTestId('rule-editor')).toBeHidden();
    const row = page.getByTestId('rule-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('empty items');
    await expect(row).toContainText('GET 127.0.0.1 /api/items.json');
    await expect(row.getByTestId('rule-hits')).toHaveText('0');

    // The proxy answers with the mock; the hit count follows while the view is shown.
    const mocked = await getViaProxy(serve.proxyUrl!, items);
    expect(mocked).toEqual({ status: 200, body: '{"items":[],"mocked":true}' });
    await expect(row.getByTestId('rule-hits')).toHaveText('1');
    await snap(page, 'rules-view-hit');

    // Traffic marks the mocked exchange and names the rule.
    await page.getByTestId('tab-traffic').click();
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'items.json' }).nth(1).getByTestId('row-mocked')).toBeVisible();
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'items.json' }).nth(0).getByTestId('row-mocked')).toHaveCount(0);
    await page.getByTestId('traffic-row').filter({ hasText: 'items.json' }).nth(1).click();
    await expect(page.getByTestId('mocked-badge')).toHaveText('Mocked — not from the network');
    await expect(page.getByTestId('details-rule')).toContainText('mock');
    await expect(page.getByTestId('details-rules')).toContainText('empty items');
    await snap(page, 'rules-traffic-mocked');
    // The first request came from the origin: no mark.
    await page.getByTestId('traffic-row').filter({ hasText: 'items.json' }).nth(0).click();
    await expect(page.getByTestId('response-headers')).toContainText('x-netlens-test');
    await expect(page.getByTestId('details-rules')).toHaveCount(0);

    // Switched off: the origin answers again; the count stays.
    await page.getByTestId('tab-rules').click();
    // The switch flips at once; the request below waits until the core has applied it (setRules answered).
    const applied = page.waitForResponse((r) => r.url().includes('/api/setRules') && r.ok());
    await page.getByTestId('rule-enabled').uncheck();
    await expect(page.getByTestId('rule-enabled')).not.toBeChecked();
    await applied;
    const again = await getViaProxy(serve.proxyUrl!, items);
    expect(again.body).toContain('"second"');
    await expect(row.getByTestId('rule-hits')).toHaveText('1');

    // A rule the core refuses: the error names the rule and the field, in the editor.
    await page.getByTestId('rule-add').click();
    await page.getByTestId('rule-mode-json').click();
    await page.getByTestId('rule-json').fill('{ "id": "bad", "match": {}, "actions": [{ "type": "delay", "before": "later", "ms": 5 }] }');
    await page.getByTestId('rule-save').click();
    await expect(page.getByTestId('rule-error')).toContainText('NL_RULES_INVALID');
    await expect(page.getByTestId('rule-error')).toContainText(
      'rules[1] (id "bad"): actions[0].before must be one of "request", "response"',
    );
    await snap(page, 'rules-json-error');
    await expect(page.getByTestId('rule-row')).toHaveCount(1);
  } finally {
    await site.close();
  }
});

test('rules from the form: a fault and a mock with a header rewrite, reordered, exported, deleted and imported again', async ({
  page,
  serve,
}) => {
  const site = await origin();
  page.on('dialog', (d) => void d.accept());
  try {
    await page.goto(serve.url);
    await page.getByTestId('tab-rules').click();

    const addRule = async (fill: () => Promise<void>) => {
      await page.getByTestId('rule-add').click();
      await fill();
      await page.getByTestId('rule-save').click();
      await expect(page.getByTestId('rule-editor')).toBeHidden();
    };
    await addRule(async () => {
      await page.getByTestId('rule-id').fill('reset-missing');
      await page.getByTestId('rule-path').fill('/missing');
      await page.getByTestId('rule-mock-on').uncheck();
      await page.getByTestId('rule-fault-on').check();
      await page.getByTestId('rule-fault').selectOption('reset');
    });
    await addRule(async () => {
      await page.getByTestId('rule-id').fill('teapot');
      await page.getByTestId('rule-method').fill('get');
      await page.getByTestId('rule-path').fill('/slow');
      await page.getByTestId('rule-mock-status').fill('418');
      await page.getByTestId('rule-mock-body').fill('short and stout');
      await page.getByTestId('rule-headers-on').check();
      await page.getByTestId('rule-headers-set').fill('X-Rule: teapot');
    });
    const ids = () => page.getByTestId('rule-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule-id')));
    await expect.poll(ids).toEqual(['reset-missing', 'teapot']);
    await expect(page.getByTestId('rule-row').nth(1)).toContainText('GET /slow');
    await expect(page.getByTestId('rule-row').nth(1)).toContainText('mock 418, rewrite response');

    // The fault breaks the request; the mock answers without the (slow) origin.
    await expect(getViaProxy(serve.proxyUrl!, `${site.url}/missing`)).rejects.toThrow();
    expect(await getViaProxy(serve.proxyUrl!, `${site.url}/slow`)).toEqual({ status: 418, body: 'short and stout' });
    await expect(page.getByTestId('rule-row').nth(0).getByTestId('rule-hits')).toHaveText('1');
    await expect(page.getByTestId('rule-row').nth(1).getByTestId('rule-hits')).toHaveText('1');

    await page.getByTestId('rule-row').nth(1).getByTestId('rule-up').click();
    await expect.poll(ids).toEqual(['teapot', 'reset-missing']);
    await snap(page, 'rules-form-two-rules');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('rules-export').click()]);
    expect(download.suggestedFilename()).toBe('netlens-rules.json');
    const file = await download.path();
    const exported = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(exported.rules.map((r: { id: string }) => r.id)).toEqual(['teapot', 'reset-missing']);
    expect(exported.rules[0].actions).toEqual([
      { type: 'mock', status: 418, body: 'short and stout' },
      { type: 'rewriteResponse', headers: { set: { 'X-Rule': 'teapot' } } },
    ]);

    await page.getByTestId('rule-row').nth(0).getByTestId('rule-delete').click();
    await page.getByTestId('rule-row').nth(0).getByTestId('rule-delete').click();
    await expect(page.getByTestId('rules-empty')).toBeVisible();
    expect((await getViaProxy(serve.proxyUrl!, `${site.url}/slow`)).body).toBe('slow');

    await page.getByTestId('rules-import-input').setInputFiles(file);
    await expect(page.getByTestId('toast-ok').filter({ hasText: 'Imported 2 rules from' })).toBeVisible();
    await expect.poll(ids).toEqual(['teapot', 'reset-missing']);
    expect((await getViaProxy(serve.proxyUrl!, `${site.url}/slow`)).status).toBe(418);
  } finally {
    await site.close();
  }
});

test('right-click a Traffic row: Mock this response, Rewrite this and Add breakpoint open prefilled rules', async ({ page, serve }) => {
  const site = await origin();
  const items = `${site.url}/api/items.json`;
  try {
    await page.goto(serve.url);
    expect((await getViaProxy(serve.proxyUrl!, items)).body).toContain('"second"');
    const row = page.getByTestId('traffic-row').filter({ hasText: 'items.json' });
    await expect(row).toHaveCount(1);

    // Rewrite this: a response rewrite of this request, its header edits switched on and empty.
    await row.click({ button: 'right' });
    await expect(page.getByTestId('row-menu')).toBeVisible();
    await page.getByTestId('row-menu-rewrite').click();
    await expect(page.getByTestId('rule-editor')).toBeVisible();
    await expect(page.getByTestId('rule-path')).toHaveValue('/api/items.json');
    await expect(page.getByTestId('rule-headers-on')).toBeChecked();
    await expect(page.getByTestId('rule-mock-on')).not.toBeChecked();
    await page.getByText('Cancel', { exact: true }).click();

    // Add breakpoint: a request breakpoint on this request (seen in JSON).
    await page.getByTestId('tab-traffic').click();
    await row.click({ button: 'right' });
    await page.getByTestId('row-menu-breakpoint').click();
    await expect(page.getByTestId('rule-method')).toHaveValue('GET');
    await page.getByTestId('rule-mode-json').click();
    await expect(page.getByTestId('rule-json')).toHaveValue(/"type": "breakpoint",\s*"on": "request"/);
    await page.getByText('Cancel', { exact: true }).click();

    // Mock this response: prefilled from the recorded exchange; the edited body is what the proxy serves.
    await page.getByTestId('tab-traffic').click();
    await row.click({ button: 'right' });
    await expect(page.getByTestId('row-menu-mock')).toBeEnabled();
    await snap(page, 'rules-row-menu');
    await page.getByTestId('row-menu-mock').click();
    await expect(page.getByTestId('row-menu')).toHaveCount(0);
    await expect(page.getByTestId('rule-method')).toHaveValue('GET');
    await expect(page.getByTestId('rule-host')).toHaveValue('127.0.0.1');
    await expect(page.getByTestId('rule-path')).toHaveValue('/api/items.json');
    await expect(page.getByTestId('rule-mock-status')).toHaveValue('200');
    await expect(page.getByTestId('rule-mock-headers')).toHaveValue(/content-type: application\/json/);
    await expect(page.getByTestId('rule-mock-body')).toHaveValue(/"second"/);
    await snap(page, 'rules-row-menu-mock-editor');
    await page.getByTestId('rule-mock-body').fill('{"items":["from the context menu"]}');
    const applied = page.waitForResponse((r) => r.url().includes('/api/setRules') && r.ok());
    await page.getByTestId('rule-save').click();
    await applied;
    await expect(page.getByTestId('rule-row')).toHaveCount(1);
    expect(await getViaProxy(serve.proxyUrl!, items)).toEqual({ status: 200, body: '{"items":["from the context menu"]}' });
  } finally {
    await site.close();
  }
});

test('an https:// page loaded by Chromium through the intercepting proxy is answered by a mock rule', async ({ page, serve }) => {
  const u = new URL(serve.url);
  const status = await fetch(new URL('/api/getStatus', u), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${u.searchParams.get('token')}` },
    body: '',
  });
  const ca = ((await status.json()) as { result: { proxy: { ca?: { leafSpkiHash: string } } } }).result.proxy.ca;
  expect(ca?.leafSpkiHash, 'the proxy intercepts HTTPS').toBeTruthy();

  // The rule, made in the app's form: no origin exists for this host, so only the mock can answer.
  await page.goto(serve.url);
  await page.getByTestId('tab-rules').click();
  await page.getByTestId('rule-add').click();
  await page.getByTestId('rule-id').fill('shop-home');
  await page.getByTestId('rule-host').fill('shop.netlens.test');
  await page.getByTestId('rule-path').fill('/');
  await page.getByTestId('rule-mock-headers').fill('Content-Type: text/html; charset=utf-8');
  await page
    .getByTestId('rule-mock-body')
    .fill('<!doctype html><title>mocked shop</title><h1 id="m">Served by a Netlens mock over TLS</h1>');
  const applied = page.waitForResponse((r) => r.url().includes('/api/setRules') && r.ok());
  await page.getByTestId('rule-save').click();
  await applied;

  // A second Chromium wired to the proxy, trusting its leaf key only (as Launch browser does); loopback not bypassed.
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      ...CHROMIUM_ARGS,
      `--proxy-server=${serve.proxyUrl}`,
      '--proxy-bypass-list=<-loopback>',
      `--ignore-certificate-errors-spki-list=${ca!.leafSpkiHash}`,
    ],
  });
  try {
    const shop = await browser.newPage();
    const res = await shop.goto('https://shop.netlens.test/');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect(shop.locator('#m')).toHaveText('Served by a Netlens mock over TLS');
    expect(await shop.title()).toBe('mocked shop');
  } finally {
    await browser.close();
  }

  // The app shows it as an intercepted, mocked exchange, and the rule counted it.
  await expect(page.getByTestId('rule-row').getByTestId('rule-hits')).toHaveText('1');
  await page.getByTestId('tab-traffic').click();
  const row = page.getByTestId('traffic-row').filter({ hasText: 'shop.netlens.test' }).first();
  await expect(row.getByTestId('row-mocked')).toBeVisible();
  await row.click();
  await expect(page.getByTestId('details-general')).toContainText('https://shop.netlens.test/');
  await expect(page.getByTestId('details-general')).toContainText('TLS intercepted');
  await expect(page.getByTestId('mocked-badge')).toBeVisible();
  await snap(page, 'rules-https-mock-traffic');
});
