/**
 * Issue 13 item 3: a HAR with a 95 MiB request header used to crash the page
 * (openSession sent ~100 M characters, Details put them in the DOM). Now the
 * session arrives as rows, Details shows the header cut and marked with its
 * size, the page keeps responding, and nothing recorded is lost.
 * The HAR is generated into a temp dir (not in git) and removed afterwards.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, snap, ARTIFACTS, ROOT } from './fixtures';
import { MiB, writeBigHar } from './big-har';

const SIZE = 95 * MiB;

test('a HAR with a 95 MiB request header opens, shows the header cut with its size, and the page stays alive', async ({ page, serve }) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-big-har-'));
  let crashed = false;
  page.on('crash', () => (crashed = true));
  try {
    const file = writeBigHar(dir, 'request-header', SIZE);
    await page.goto(serve.url);
    await page.getByTestId('tab-sessions').click();
    await page.getByTestId('import-input').setInputFiles(file);
    await expect(page.getByTestId('session-banner')).toContainText('request-header', { timeout: 60_000 });
    const rows = page.getByTestId('traffic-row');
    await expect(rows).toHaveCount(3);

    // The hostile row: Details shows the header cut, with its whole size.
    await rows.nth(1).click();
    const headers = page.getByTestId('request-headers');
    await expect(headers).toContainText('X-Huge');
    const note = headers.getByTestId('cut-note');
    await expect(note).toContainText('95.0 MiB, shown first 64 KiB');
    await expect(headers.getByTestId('cut-save')).toBeVisible();
    // No 100 M character string in the DOM: the page holds what it shows.
    expect(await page.evaluate(() => document.body.textContent!.length)).toBeLessThan(200_000);
    await snap(page, 'session-huge-header');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.getByTestId('details').screenshot({ path: path.join(ARTIFACTS, 'session-huge-header-details.png') });

    // "Save full value" downloads every byte (fetched in chunks, never one string in the page).
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await headers.getByTestId('cut-save').click();
    const saved = await (await download).path();
    expect(fs.statSync(saved).size).toBe(SIZE);
    const fd = fs.openSync(saved, 'r');
    const probe = Buffer.alloc(4096);
    for (const at of [0, SIZE / 2, SIZE - 4096]) {
      fs.readSync(fd, probe, 0, probe.length, at);
      expect(probe.every((b) => b === 0x61)).toBe(true);
    }
    fs.closeSync(fd);

    // Still responding: another row, other tabs, other views.
    await rows.nth(2).click();
    await expect(page.getByTestId('details-general')).toContainText('http://small.test/last');
    await expect(page.getByTestId('request-headers').getByTestId('cut-note')).toHaveCount(0);
    await page.getByTestId('details-tab-response').click();
    await expect(page.getByTestId('body-text')).toHaveText('ok');
    await page.getByTestId('tab-waterfall').click();
    await expect(page.getByTestId('tab-waterfall')).toHaveAttribute('aria-selected', 'true');
    await page.getByTestId('tab-traffic').click();
    await rows.nth(1).click();
    await page.getByTestId('details-tab-headers').click();
    await expect(page.getByTestId('request-headers').getByTestId('cut-note')).toContainText('95.0 MiB');
    expect(crashed).toBe(false);

    // Nothing recorded is lost: the session exported by the CLI holds the whole header.
    const bin = path.join(ROOT, 'bin', 'netlens.js');
    const cli = (...args: string[]) => execFileSync(process.execPath, [bin, ...args, '--data-dir', serve.dataDir], { encoding: 'utf8' });
    const [session] = JSON.parse(cli('sessions', 'list', '--json'));
    const out = path.join(dir, 'exported.har');
    cli('sessions', 'export', session.id, out);
    const exported = JSON.parse(fs.readFileSync(out, 'utf8'));
    const value: string = exported.log.entries[1].request.headers.find((h: { name: string }) => h.name === 'X-Huge').value;
    expect(value.length).toBe(SIZE);
    expect(/^a+$/.test(value)).toBe(true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
