/**
 * Sessions → Serve and Resend (issue 15 item 8): a small HAR whose origin is a
 * local server is imported; Serve shows an address that answers from the
 * recording with live counts until Stop; Resend shows a per-request diff with
 * "changed" and "failed" filters.
 */
import net from 'node:net';
import type { Page } from '@playwright/test';
import { test, expect, snap } from './fixtures';
import { origin, viaProxy } from './origin';

/** The JSON /api/items.json answers now (e2e/origin.ts); the recording has "FIRST": same size, other body. */
const ITEMS_NOW = JSON.stringify({
  items: [
    { id: 1, name: 'first' },
    { id: 2, name: 'second' },
  ],
  total: 2,
});

function entry(method: string, url: string, status: number, text: string, mimeType = 'text/plain', postData?: string) {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 12,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'User-Agent', value: 'netlens-e2e' }],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: postData?.length ?? 0,
      ...(postData ? { postData: { mimeType: 'text/plain', text: postData } } : {}),
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: mimeType }],
      cookies: [],
      content: { size: Buffer.byteLength(text), mimeType, text },
      redirectURL: '',
      headersSize: -1,
      bodySize: Buffer.byteLength(text),
    },
    cache: {},
    timings: { send: 1, wait: 10, receive: 1 },
  };
}

async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function importHar(page: Page, name: string, har: unknown) {
  await page.getByTestId('import-input').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(har)) });
  await expect(page.getByTestId('toast-ok').filter({ hasText: `Imported ${name}` })).toBeVisible();
  await page.getByTestId('tab-sessions').click();
}

test('Serve answers from a session with live counts until stopped; Resend shows the diff with filters', async ({ page, serve }) => {
  const site = await origin();
  try {
    const dead = await deadPort();
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'e2e', version: '1' },
        pages: [],
        entries: [
          entry('GET', `${site.url}/api/items.json`, 200, ITEMS_NOW.replace('first', 'FIRST'), 'application/json'),
          entry('GET', `${site.url}/missing`, 200, 'it was here'),
          entry('POST', `${site.url}/submit`, 201, 'got 5 bytes', 'text/plain', 'hello'),
          entry('GET', `http://127.0.0.1:${dead}/gone`, 200, 'origin gone'),
        ],
      },
    };
    await page.goto(serve.url);
    await page.getByTestId('tab-sessions').click();
    await importHar(page, 'replay-me.har', har);
    const row = page.getByTestId('session-row').filter({ hasText: 'replay-me' });

    // ── Serve ──
    await row.getByTestId('session-serve').click();
    await expect(page.getByTestId('serve-form')).toContainText('One replay server runs at a time');
    // The capture proxy's port is taken: the error names the port and what to do; the form stays.
    const capturePort = new URL(serve.proxyUrl!).port;
    await page.getByTestId('serve-port').fill('70000');
    await expect(page.getByTestId('serve-start')).toBeDisabled();
    await page.getByTestId('serve-port').fill(capturePort);
    await page.getByTestId('serve-start').click();
    await expect(page.getByTestId('toast-error')).toContainText(
      `port ${capturePort} is already in use. Choose another port, or leave it empty`,
    );
    await snap(page, 'replay-serve-port-in-use');
    await page.getByTestId('serve-port').fill('');
    await page.getByTestId('serve-start').click();
    await expect(page.getByTestId('serve-form')).toHaveCount(0);
    const panel = page.getByTestId('serve-panel');
    await expect(panel).toContainText('Serving "replay-me"');
    await expect(panel).toContainText('One replay server runs at a time');
    const address = (await page.getByTestId('serve-address').textContent())!.trim();
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(address).not.toBe(serve.proxyUrl);
    await expect(page.getByTestId('serve-served')).toHaveText('0');

    // Recorded 200 while the origin now says 404: the answer comes from the recording.
    expect(await viaProxy(address, `${site.url}/missing`)).toBe(200);
    expect(await viaProxy(address, `${site.url}/api/items.json`)).toBe(200);
    // Not recorded: forwarded to the origin (404 there).
    expect(await viaProxy(address, `${site.url}/not-recorded`)).toBe(404);
    await expect(page.getByTestId('serve-served')).toHaveText('2');
    await expect(page.getByTestId('serve-unmatched')).toHaveText('1');
    await expect(panel).toContainText('2 of 4 recorded responses not served yet');
    // Another session cannot be served meanwhile; the served one offers Stop serving.
    await expect(row.getByTestId('session-serve-stop')).toBeVisible();
    await snap(page, 'replay-serving');

    await page.getByTestId('serve-stop').click();
    await expect(panel).toContainText('(stopped)');
    await expect(page.getByTestId('serve-served')).toHaveText('2');
    await expect(page.getByTestId('serve-address')).toHaveCount(0);
    await expect(row.getByTestId('session-serve')).toBeEnabled();
    await expect(viaProxy(address, `${site.url}/missing`)).rejects.toThrow();
    await page.getByTestId('serve-dismiss').click();
    await expect(panel).toHaveCount(0);

    // ── Resend (proxy off: directly, so the dead origin fails as a connection error) ──
    await page.getByTestId('proxy-stop').click();
    await expect(page.getByTestId('proxy-start')).toBeVisible();
    await row.getByTestId('session-resend').click();
    const resend = page.getByTestId('resend-panel');
    await expect(resend).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('resend-summary')).toContainText(
      '4 requests directly (the proxy is off): 2 changed, 1 failed, 1 unchanged',
    );
    const rows = page.getByTestId('resend-row');
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(0)).toContainText('changed'); // body: same size, other content
    await expect(rows.nth(1).getByTestId('resend-status-changed')).toHaveText('200 → 404');
    await expect(rows.nth(2)).toContainText('same');
    await expect(rows.nth(3)).toContainText('NL_UPSTREAM_REFUSED');
    await snap(page, 'replay-resend-all');

    await page.getByTestId('resend-filter-changed').click();
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('/api/items.json');
    await expect(rows.nth(1)).toContainText('/missing');
    await snap(page, 'replay-resend-changed');
    await page.getByTestId('resend-filter-failed').click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(`127.0.0.1:${dead}/gone`);
    await snap(page, 'replay-resend-failed');
    await page.getByTestId('resend-filter-all').click();
    await expect(rows).toHaveCount(4);
    await page.getByTestId('resend-close').click();
    await expect(resend).toHaveCount(0);
  } finally {
    await site.close();
  }
});
