/**
 * Measures one hostile HAR end to end (not a test; docs/reliability/sessions.md):
 *   npm run build && npx tsx e2e/big-session-measure.ts <field> [cli]
 * field: request-header | url | response-header | many-headers | cookie | post-data | response-body.
 * Imports it through the UI (or with `netlens sessions import` when `cli` is given,
 * so only opening is measured), selects the hostile row, visits Headers, Payload and
 * Response, another row and the Waterfall; prints whether the page survived, the
 * DOM text size and the peak RSS (VmHWM) of `netlens serve`.
 */
import { chromium } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startServe, stopServe } from './fixtures';
import { CHROMIUM_ARGS } from './playwright.config';
import { MiB, writeBigHar, type BigField } from './big-har';

const field = (process.argv[2] ?? 'request-header') as BigField;
const viaCli = process.argv[3] === 'cli';
const size = field === 'many-headers' ? 100_000 : field === 'cookie' ? 50 * MiB : 95 * MiB;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-big-har-'));
const file = writeBigHar(dir, field, size);
const { serve, child } = await startServe();
const peak = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? -1024) / 1024);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
let crashed = false;
page.on('crash', () => (crashed = true));
const t0 = Date.now();
const log = (...a: unknown[]) => console.log(`[${field}${viaCli ? ' cli' : ''} +${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
try {
  await page.goto(serve.url);
  await page.getByTestId('tab-sessions').click();
  if (viaCli) {
    execFileSync(process.execPath, [path.join(ROOT, 'bin', 'netlens.js'), 'sessions', 'import', file, '--data-dir', serve.dataDir]);
    await page.reload();
    await page.getByTestId('tab-sessions').click();
    await page.getByTestId('session-open').click();
  } else await page.getByTestId('import-input').setInputFiles(file);
  await page.getByTestId('session-banner').waitFor({ timeout: 120_000 });
  log('opened; serve peak RSS', peak(), 'MiB');
  await page.getByTestId('traffic-row').nth(1).click();
  for (const tab of ['headers', 'payload', 'response']) {
    await page.getByTestId(`details-tab-${tab}`).click();
    await page.waitForTimeout(2000);
  }
  await page.getByTestId('traffic-row').nth(2).click();
  await page.getByTestId('tab-waterfall').click();
  await page.getByTestId('tab-traffic').click();
  const text = await page.evaluate(() => document.body.textContent!.length);
  log('page alive:', !crashed, '· DOM text', text, 'characters · serve peak RSS', peak(), 'MiB');
} catch (err) {
  log('FAILED', crashed ? '(the page crashed)' : '', String(err).slice(0, 300));
  process.exitCode = 1;
} finally {
  await browser.close();
  await stopServe(child, serve.dataDir);
  fs.rmSync(dir, { recursive: true, force: true });
}
