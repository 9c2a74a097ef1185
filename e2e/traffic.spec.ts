/** Real requests through the real proxy (started by `netlens serve`) appear live in Traffic. */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { test, expect, snap } from './fixtures';

// A 1×1 PNG: the Details pane must show it as an image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function origin(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/api/items.json') {
      const body = zlib.gzipSync(JSON.stringify({ items: [{ id: 1, name: 'first' }, { id: 2, name: 'second' }], total: 2 }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-netlens-test': 'yes' });
      res.end(body);
    } else if (req.url === '/pixel.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
    } else if (req.url === '/submit') {
      let n = 0;
      req.on('data', (c) => (n += c.length));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(`got ${n} bytes`);
      });
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('slow'), 300);
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not here</h1>');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** One request through the proxy in absolute form (what browsers do for http:// URLs). */
function viaProxy(proxyUrl: string, url: string, method = 'GET', body?: string): Promise<number> {
  const p = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: p.hostname, port: p.port, method, path: url, headers: { host: new URL(url).host, 'user-agent': 'netlens-e2e', ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('requests through the proxy appear live; selecting one shows headers and body', async ({ page, serve }) => {
  expect(serve.proxyUrl, serve.output()).toBeTruthy();
  const site = await origin();
  try {
    await page.goto(serve.url);
    await expect(page.getByTestId('proxy-status')).toContainText(serve.proxyUrl!.replace('http://', ''));
    await expect(page.getByTestId('traffic-empty')).toBeVisible();

    expect(await viaProxy(serve.proxyUrl!, `${site.url}/api/items.json`)).toBe(200);
    expect(await viaProxy(serve.proxyUrl!, `${site.url}/pixel.png`)).toBe(200);
    expect(await viaProxy(serve.proxyUrl!, `${site.url}/missing`)).toBe(404);
    expect(await viaProxy(serve.proxyUrl!, `${site.url}/submit`, 'POST', JSON.stringify({ hello: 'proxy' }))).toBe(201);
    expect(await viaProxy(serve.proxyUrl!, `${site.url}/slow`)).toBe(200);
    // Nothing listens on port 9: the proxy records a failed exchange (and answers 502 or drops the connection).
    await viaProxy(serve.proxyUrl!, 'http://127.0.0.1:9/refused').catch(() => 0);

    // Rows arrive over the event socket without a reload.
    await expect(page.getByTestId('traffic-row')).toHaveCount(6);
    await expect(page.getByTestId('statusbar')).toContainText('6 requests');
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'missing' })).toContainText('404');

    const items = page.getByTestId('traffic-row').filter({ hasText: 'items.json' });
    await items.click();
    await expect(page.getByTestId('details-general')).toContainText(`${site.url}/api/items.json`);
    await expect(page.getByTestId('response-headers')).toContainText('x-netlens-test');
    await expect(page.getByTestId('request-headers')).toContainText('netlens-e2e');
    await snap(page, 'traffic-live-headers');

    // The gzip body is decoded and the JSON pretty-printed.
    await page.getByTestId('details-tab-response').click();
    await expect(page.getByTestId('body-response')).toContainText('gzip');
    await expect(page.getByTestId('body-text')).toContainText('"name": "second"');
    await snap(page, 'traffic-live-body');

    await page.getByTestId('details-tab-timing').click();
    await expect(page.getByTestId('timing-panel')).toContainText('Waiting (TTFB)');
    await expect(page.getByTestId('timing-panel')).toContainText('Proxy overhead');
    await snap(page, 'traffic-live-timing');

    // Keyboard: ↓ selects the next request (pixel.png follows items.json).
    await page.getByTestId('traffic-scroller').focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByTestId('details-general')).toContainText('pixel.png');
    await page.getByTestId('traffic-row').filter({ hasText: 'pixel.png' }).click();
    await page.getByTestId('details-tab-response').click();
    await expect(page.getByTestId('body-image')).toBeVisible();

    await page.getByTestId('traffic-row').filter({ hasText: 'submit' }).click();
    await page.getByTestId('details-tab-payload').click();
    await expect(page.getByTestId('body-text')).toContainText('"hello": "proxy"');

    await page.getByTestId('traffic-row').filter({ hasText: 'refused' }).click();
    await expect(page.getByTestId('details-error')).toContainText('NL_UPSTREAM');
    await snap(page, 'traffic-live-error');

    // Filters: text query and status chips.
    await page.getByTestId('filter-text').fill('status:4xx');
    await expect(page.getByTestId('traffic-row')).toHaveCount(1);
    await page.getByTestId('filter-text').fill('-png -json');
    await expect(page.getByTestId('traffic-row')).toHaveCount(4);
    await page.getByTestId('filter-text').fill('');
    await page.getByTestId('type-image').click();
    await expect(page.getByTestId('traffic-row')).toHaveCount(1);
    await page.getByTestId('type-image').click();

    await page.getByTestId('tab-waterfall').click();
    await expect(page.getByTestId('waterfall-row')).toHaveCount(6);
    await snap(page, 'waterfall-live');
  } finally {
    await site.close();
  }
});
