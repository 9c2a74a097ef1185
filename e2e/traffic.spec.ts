/** Real requests through the real proxy (started by `netlens serve`) appear live in Traffic. */
import { test, expect, snap } from './fixtures';
import { origin, viaProxy } from './origin';

test('requests through the proxy appear live; selecting one shows headers and body', async ({ page, serve, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
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
    await page.getByTestId('copy-curl').click();
    await expect(page.getByTestId('toast-ok').filter({ hasText: 'cURL' })).toBeVisible();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toBe(
      `curl '${site.url}/submit' -X POST -H 'user-agent: netlens-e2e' -H 'content-type: application/json' --data-raw '{"hello":"proxy"}'`,
    );

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
