/**
 * Waterfall zoom: after a drag-zoom the axis, the range text and the tooltips
 * count from the same zero (the capture start). The axis used to restart at
 * "0 ms" while the range text read e.g. "412 ms – 1.37 s of 2.74 s".
 */
import { test, expect, snap } from './fixtures';

/** A page load of 12 requests, one every 150 ms, each 120 ms long (wait 80, receive 40). */
function spreadHar(): Buffer {
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
  const entries = Array.from({ length: 12 }, (_, i) => ({
    startedDateTime: new Date(t0 + i * 150).toISOString(),
    time: 120,
    request: {
      method: 'GET',
      url: `https://example.test/r${i}.js`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 2, mimeType: 'text/javascript', text: '//' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 2,
    },
    cache: {},
    timings: { send: 0, wait: 80, receive: 40 },
  }));
  return Buffer.from(JSON.stringify({ log: { version: '1.2', creator: { name: 'e2e', version: '1' }, pages: [], entries } }));
}

/** "12.3 ms", "1.24 s", "1.2 min", "1300 ms" → ms. */
function ms(text: string): number {
  const m = /(-?[\d.,]+)\s*(ms|s|min|h|d)\b/.exec(text);
  if (!m) throw new Error(`not a duration: "${text}"`);
  const unit = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms'];
  return Number(m[1]!.replace(/,/g, '')) * unit;
}

test('after a drag-zoom the axis, the range text and the tooltip agree', async ({ page, serve }) => {
  await page.goto(serve.url);
  await page.getByTestId('tab-sessions').click();
  await page.getByTestId('import-input').setInputFiles({ name: 'spread.har', mimeType: 'application/json', buffer: spreadHar() });
  await expect(page.getByTestId('session-banner')).toContainText('spread');
  await page.getByTestId('tab-waterfall').click();
  await expect(page.getByTestId('waterfall-row').first()).toBeVisible();

  const axis = page.locator('.wf-axis');
  const box = (await axis.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, box.y + 5, { steps: 5 });
  await page.mouse.up();
  const rangeText = (await page.getByTestId('waterfall-range').textContent())!;
  const m = /^(.+?) – (.+?) of (.+)$/.exec(rangeText);
  expect(m, rangeText).not.toBeNull();
  const [from, to, total] = [ms(m![1]!), ms(m![2]!), ms(m![3]!)];
  expect(from).toBeGreaterThan(0.2 * total);
  expect(to).toBeLessThan(0.8 * total);

  // The axis labels lie inside the range the text names (it used to start again at "0 ms").
  const labels = await axis.locator('.tick').allTextContents();
  expect(labels.length).toBeGreaterThan(1);
  const values = labels.map(ms);
  const slack = (to - from) * 0.02;
  for (const v of values) {
    expect(v).toBeGreaterThanOrEqual(from - slack);
    expect(v).toBeLessThanOrEqual(to + slack);
  }
  // And each label sits where its time is: px / width × (to − from) + from.
  const ticks = await axis.locator('.tick').evaluateAll((els) => els.map((e) => (e as HTMLElement).offsetLeft));
  for (const [i, px] of ticks.entries())
    expect(Math.abs(from + (px / box.width) * (to - from) - values[i]!)).toBeLessThanOrEqual((to - from) * 0.03);

  // A bar that starts inside the zoomed range: its tooltip's "Started at" is read on the same axis.
  const rows = page.getByTestId('waterfall-row');
  let checked = false;
  for (let i = 0; i < (await rows.count()) && !checked; i++) {
    const bar = rows.nth(i).locator('.bar').first();
    const b = await bar.boundingBox();
    if (!b || b.x < box.x + 20 || b.x > box.x + box.width - 20) continue;
    await bar.hover({ position: { x: 1, y: b.height / 2 }, force: true });
    const tip = page.getByTestId('waterfall-tooltip');
    await expect(tip).toBeVisible();
    const started = ms((await tip.locator('tr', { hasText: 'Started at' }).locator('.v').textContent())!);
    const atPx = from + ((b.x - box.x) / box.width) * (to - from);
    expect(Math.abs(started - atPx)).toBeLessThanOrEqual((to - from) * 0.03);
    checked = true;
  }
  expect(checked, 'a bar starting inside the zoomed range').toBe(true);
  await snap(page, 'waterfall-zoomed');
});
