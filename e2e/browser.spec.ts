/**
 * "Launch browser": a Chrome wired to the proxy; what it loads shows up in Traffic.
 * Here (as on any server) there is no display: the button must say that no window
 * can be shown and what to do, not "Chrome started" for an invisible headless Chrome.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, snap, startServe, stopServe } from './fixtures';

test('without a display: Launch browser explains; with a start page Chrome runs headless, says so, and its requests appear', async ({
  page,
}) => {
  // No display whatever the machine running the tests has.
  const { serve, child } = await startServe([], { DISPLAY: '', WAYLAND_DISPLAY: '' });
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/css' });
    res.end(
      req.url === '/' ? '<!doctype html><link rel="stylesheet" href="/site.css"><h1>hello from the origin</h1>' : 'h1 { color: teal }',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await page.goto(serve.url);
    // The empty Traffic view does not offer Launch browser as the way in; the button's tooltip says why.
    await expect(page.getByTestId('traffic-empty')).toContainText('This machine has no display: point a browser on your desktop at it');
    await expect(page.getByTestId('launch-browser')).toHaveAttribute('title', /no display, so no Chrome window can be shown/);
    await page.getByTestId('launch-browser').click();
    const err = page.getByTestId('toast-error');
    await expect(err).toContainText('Chrome was not started: there is no display', { timeout: 30_000 });
    await expect(err).toContainText(`set its browser's HTTP and HTTPS proxy to ${serve.proxyUrl}`);
    await expect(err).toContainText('NL_BROWSER_NO_DISPLAY');
    await expect(page.getByTestId('toast-ok')).toHaveCount(0);
    await snap(page, 'launch-browser-no-display');

    // With a start page (what the Electron shell and scripts can pass) a headless Chrome is useful: it loads it.
    const u = new URL(serve.url);
    const res = await fetch(new URL('/api/launchBrowser', u), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${u.searchParams.get('token')}` },
      body: JSON.stringify({ url: `${origin}/` }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { headless?: boolean; message?: string } } & { headless?: boolean; message?: string };
    const info = body.result ?? body;
    expect(info.headless).toBe(true);
    expect(info.message).toMatch(
      /^No window: there is no display .* runs headless\. It loaded http:\/\/127\.0\.0\.1:\d+\/ through the proxy/,
    );

    const doc = page.getByTestId('traffic-row').filter({ hasText: '127.0.0.1' }).first();
    await expect(doc).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'site.css' })).toHaveCount(1, { timeout: 15_000 });
    await doc.click();
    await expect(page.getByTestId('request-headers')).toContainText('Chrome');
    await snap(page, 'traffic-launched-browser');
  } finally {
    await new Promise((r) => server.close(r));
    await stopServe(child, serve.dataDir);
  }
});
