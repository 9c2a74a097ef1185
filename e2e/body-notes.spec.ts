/**
 * Details → Response: a body whose gzip is corrupt says so above the raw bytes
 * (live, and after saving and reopening the session); an image shows its size.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { test, expect, snap } from './fixtures';
import { viaProxy } from './origin';
import { pngImage } from '../proxy/src/lab/site/assets';

test('corrupt gzip: a note over the raw bytes; an image: its dimensions; "1 request"', async ({ page, serve }) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/broken.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      // A gzip header, then bytes that are not deflate data.
      res.end(Buffer.concat([zlib.gzipSync('x').subarray(0, 10), Buffer.from('this is not deflate data at all')]));
    } else {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(pngImage(7, 48));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await page.goto(serve.url);
    expect(await viaProxy(serve.proxyUrl!, `${site}/broken.html`)).toBe(200);
    await expect(page.getByTestId('traffic-row')).toHaveCount(1);
    await expect(page.getByTestId('statusbar')).toHaveText(/^1 request(?!s)/);

    const check = async (name: string) => {
      await page.getByTestId('traffic-row').filter({ hasText: 'broken.html' }).click();
      await page.getByTestId('details-tab-response').click();
      await expect(page.getByTestId('body-decode-error')).toHaveText(
        /^Content-Encoding gzip could not be decoded: .+; showing the raw bytes\.$/,
      );
      await expect(page.getByTestId('body-hex')).toContainText('1f 8b');
      await snap(page, name);
    };
    await check('body-decode-error-live');

    expect(await viaProxy(serve.proxyUrl!, `${site}/logo.png`)).toBe(200);
    await expect(page.getByTestId('traffic-row')).toHaveCount(2);
    await page.getByTestId('traffic-row').filter({ hasText: 'logo.png' }).click();
    await page.getByTestId('details-tab-response').click();
    await expect(page.getByTestId('body-image')).toBeVisible();
    await expect(page.getByTestId('body-image-size')).toHaveText('48 × 48 px');
    await snap(page, 'body-image-dimensions');

    // Saved and reopened (the HAR path): the same note, not a silent hex dump.
    await page.getByTestId('tab-sessions').click();
    await page.getByTestId('save-live').click();
    await page.getByTestId('name-input').fill('broken');
    await page.getByTestId('name-confirm').click();
    await expect(page.getByTestId('session-row')).toHaveCount(1);
    await page.getByTestId('session-open').first().click();
    await expect(page.getByTestId('session-banner')).toContainText('broken');
    await expect(page.getByTestId('session-banner')).toContainText('2 requests');
    await check('body-decode-error-session');
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('a brotli bomb: shown decoded and cut, the proxy still answering while it decodes', async ({ page, serve }) => {
  // ~100 bytes of brotli that decode to 24 MiB of text: the Body tab shows the first 2 MiB and the whole size.
  const decoded = 24 * 1024 * 1024;
  const bomb = zlib.brotliCompressSync(Buffer.alloc(decoded, 'a'), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  const server = http.createServer((req, res) => {
    if (req.url === '/bomb.txt') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' });
      res.end(bomb);
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('small');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await page.goto(serve.url);
    expect(await viaProxy(serve.proxyUrl!, `${site}/bomb.txt`)).toBe(200);
    await page.getByTestId('traffic-row').filter({ hasText: 'bomb.txt' }).click();
    await page.getByTestId('details-tab-response').click();
    const meta = page.getByTestId('body-response').locator('.body-meta');
    await expect(meta).toContainText(`br → ${(decoded / 1e6).toFixed(1)} MB decoded`);
    await expect(page.getByTestId('body-response')).toContainText(/This body is (too large to show whole|24(\.0)? MiB)/);
    await expect(page.getByTestId('body-text')).toContainText('aaaaaaaa');
    await snap(page, 'body-bomb-live');
    // Another request goes through while the same body is decoded again (the tab opened anew).
    await page.getByTestId('details-tab-headers').click();
    await page.getByTestId('details-tab-response').click();
    expect(await viaProxy(serve.proxyUrl!, `${site}/small.txt`)).toBe(200);
    await expect(page.getByTestId('traffic-row')).toHaveCount(2);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
