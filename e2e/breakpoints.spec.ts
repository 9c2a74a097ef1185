/**
 * A breakpoint rule (given to `netlens serve --rules FILE`) pauses a request sent through the
 * real proxy; the UI shows it in the queue, a request header is edited there, Continue sends
 * it on, and the origin receives the edited header.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test, expect, snap, startServe, stopServe } from './fixtures';

test('a paused request is edited in the queue and the origin receives the edited header', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-e2e-bp-'));
  const rulesFile = path.join(dir, 'rules.json');
  fs.writeFileSync(
    rulesFile,
    JSON.stringify({
      version: 1,
      rules: [{ id: 'hold', name: 'hold the API', match: { path: '/api/*' }, actions: [{ type: 'breakpoint', on: 'request' }] }],
    }),
  );
  // The origin remembers the headers it received.
  let received: http.IncomingHttpHeaders | undefined;
  const site = http.createServer((req, res) => {
    received = req.headers;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const siteUrl = `http://127.0.0.1:${(site.address() as import('node:net').AddressInfo).port}`;
  const { serve, child } = await startServe(['--rules', rulesFile]);
  try {
    expect(serve.output()).toContain('Rules: 1 rule from');
    await page.goto(serve.url);
    await expect(page.getByTestId('proxy-status')).toContainText(serve.proxyUrl!.replace('http://', ''));
    await expect(page.getByTestId('breakpoints-badge')).toHaveCount(0);

    const proxy = new URL(serve.proxyUrl!);
    const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: proxy.hostname, port: Number(proxy.port), path: `${siteUrl}/api/order`, headers: { 'X-Role': 'guest' }, agent: false },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

    // The pause shows up live: the count in the top bar, and the queue opens with the editor.
    await expect(page.getByTestId('breakpoints-count')).toHaveText('1');
    await expect(page.getByTestId('breakpoint-row')).toContainText('/api/order');
    const headers = page.getByTestId('bp-headers');
    await expect(headers).toHaveValue(/X-Role: guest/);
    expect(received, 'the origin must not see the request while it is paused').toBeUndefined();
    await snap(page, 'breakpoints-paused');

    await headers.fill((await headers.inputValue()).replace('X-Role: guest', 'X-Role: admin'));
    await snap(page, 'breakpoints-edited');
    await page.getByTestId('bp-continue').click();

    const r = await reply;
    expect(r).toEqual({ status: 200, body: 'ok' });
    expect(received?.['x-role']).toBe('admin');
    await expect(page.getByTestId('breakpoints-count')).toHaveText('0');
    await expect(page.getByTestId('breakpoint-row')).toHaveCount(0);
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'order' })).toContainText('200');
    await snap(page, 'breakpoints-continued');
  } finally {
    await stopServe(child, serve.dataDir);
    await new Promise((r) => site.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
