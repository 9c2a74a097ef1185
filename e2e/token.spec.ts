/**
 * The `netlens serve` token stays with its own origin (issue 13, item 2): no
 * cookie that Chromium would send to every other port of 127.0.0.1, no token in
 * the address or history after load, and a reload of the token-less address in
 * the same tab still works (live rows keep arriving over the event socket).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, snap } from './fixtures';
import { origin, viaProxy } from './origin';

/** Another server on 127.0.0.1 that records every request it gets (URL and headers). */
async function bystander(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
    res.writeHead(200, {
      'content-type': 'text/html',
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-allow-credentials': 'true',
    });
    res.end('<!doctype html><title>bystander</title><p>another server</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  // closeAllConnections: Chromium may hold a connection it opened ahead of a request it never made, which server.close()
  // waits for (Node closes only connections idle after a request) until its header timeout: the test timed out in CI once.
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}`, seen, close };
}

test('the token never reaches another server on 127.0.0.1 and is not in the address or history after load', async ({
  page,
  serve,
  context,
}) => {
  const token = new URL(serve.url).searchParams.get('token')!;
  expect(token.length).toBeGreaterThan(20);
  const other = await bystander();
  try {
    await page.goto(serve.url);
    await expect(page.getByTestId('statusbar')).toContainText('connected');

    // Not in the address, the tab's history, a cookie or the document.
    expect(page.url()).not.toContain(token);
    expect(await page.evaluate(() => location.href)).not.toContain(token);
    const cdp = await context.newCDPSession(page);
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: Array<{ url: string }> };
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect(e.url).not.toContain(token);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => document.cookie)).toBe('');

    // The browser talks to the other server every way a cookie for 127.0.0.1 would ride along (the Netlens
    // page's own CSP forbids it to connect elsewhere): a navigation, then requests from that server's page.
    await page.goto(`${other.url}/navigate`);
    await page.evaluate(async () => {
      await fetch('/fetch-credentials', { credentials: 'include' });
      await new Promise((r) => {
        const img = new Image();
        img.onload = img.onerror = r;
        img.src = '/img';
      });
    });
    const second = await context.newPage();
    await second.goto(`${other.url}/new-tab`);
    await second.close();

    expect(other.seen.length).toBeGreaterThanOrEqual(4);
    for (const r of other.seen) {
      expect(r).not.toContain(token);
      expect(r).not.toContain('netlens_token');
    }
  } finally {
    await other.close();
  }
});

test('a reload of the token-less address keeps working: commands and live rows over the event socket', async ({ page, serve }) => {
  const site = await origin();
  try {
    await page.goto(serve.url);
    await expect(page.getByTestId('statusbar')).toContainText('connected');
    const bare = page.url();
    expect(bare).not.toContain('token');

    await page.reload();
    expect(page.url()).toBe(bare);
    await expect(page.getByTestId('statusbar')).toContainText('connected');
    await expect(page.getByTestId('proxy-status')).toContainText(serve.proxyUrl!.replace('http://', ''));
    expect(await viaProxy(serve.proxyUrl!, `${site.url}/api/items.json`)).toBe(200);
    await expect(page.getByTestId('traffic-row')).toHaveCount(1);
    await expect(page.getByTestId('traffic-row')).toContainText('items.json');
    await snap(page, 'token-less-reload');

    // A fresh tab has no token: it says how to get one instead of failing silently.
    const fresh = await page.context().newPage();
    const res = await fresh.goto(bare);
    expect(res!.status()).toBe(200);
    await expect(fresh.getByTestId('token-required')).toContainText('Token required');
    await snap(fresh, 'token-required');
    await fresh.close();
  } finally {
    await site.close();
  }
});
