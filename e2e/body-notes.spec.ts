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
