/** "Launch browser": a Chrome wired to the proxy; what it loads shows up in Traffic. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, snap } from './fixtures';

test('Launch browser starts Chrome through the proxy and its requests appear', async ({ page, serve }) => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/css' });
    res.end(req.url === '/' ? '<!doctype html><link rel="stylesheet" href="/site.css"><h1>hello from the origin</h1>' : 'h1 { color: teal }');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await page.goto(serve.url);
    await page.getByTestId('launch-browser').click();
    await expect(page.getByTestId('toast-ok')).toContainText('Chrome started', { timeout: 30_000 });

    // Same command with a start page (what the Electron shell and scripts can pass).
    const u = new URL(serve.url);
    const res = await fetch(new URL('/api/launchBrowser', u), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${u.searchParams.get('token')}` },
      body: JSON.stringify({ url: `${origin}/` }),
    });
    expect(res.status).toBe(200);

    const doc = page.getByTestId('traffic-row').filter({ hasText: '127.0.0.1' }).first();
    await expect(doc).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'site.css' })).toHaveCount(1, { timeout: 15_000 });
    await doc.click();
    await expect(page.getByTestId('request-headers')).toContainText('Chrome');
    await snap(page, 'traffic-launched-browser');
  } finally {
    await new Promise((r) => server.close(r));
  }
});
