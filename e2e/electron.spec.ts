/**
 * The real Electron window (issue 6): opens on netlens://app, shows Traffic,
 * a request through the in-process proxy appears, the page has no Node
 * (`require`, `process`) and `window.netlens` is exactly the contract; quitting
 * keeps the capture as a session.
 *
 * Runs only where an Electron binary is installed (NETLENS_ELECTRON=<path>
 * or the electron package's download) and, on Linux, a display exists
 * (e.g. under xvfb-run). Otherwise it skips and prints why.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect, _electron as electron } from '@playwright/test';
import { COMMAND_NAMES, type NetlensApi } from '../proxy/src/api/contract';
import { origin, viaProxy } from './origin';
import { installedElectron } from '../bin/electron-binary.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Electron binary, or why this test cannot run here. */
function electronBinary(): { binary?: string; reason?: string } {
  let binary = process.env.NETLENS_ELECTRON;
  if (!binary) {
    // Not require('electron'): since Electron 45 that downloads a missing binary from GitHub.
    const found = installedElectron(import.meta.url);
    if ('reason' in found) return { reason: `no Electron binary installed (${found.reason})` };
    binary = found.binary;
  }
  if (!fs.existsSync(binary)) return { reason: `no Electron binary at ${binary}` };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return { reason: 'no display for the Electron window (run under xvfb-run)' };
  return { binary };
}

declare global {
  interface Window {
    netlens?: NetlensApi;
  }
}

test('Electron window: Traffic view, live request through the proxy, no Node in the page, capture kept at quit', async () => {
  const found = electronBinary();
  if (!found.binary) {
    console.log(`electron.spec: skipped: ${found.reason}`);
    test.skip(true, found.reason);
    return;
  }
  execFileSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-electron-data-'));
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-electron-user-'));
  const env = { ...process.env, NETLENS_DATA_DIR: dataDir, NETLENS_USER_DATA_DIR: userData, NETLENS_PROXY_PORT: '0' } as Record<
    string,
    string
  >;
  delete env.ELECTRON_RUN_AS_NODE;
  // Chromium refuses to run as root with its sandbox on; CI machines run as root.
  const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const app = await electron.launch({ executablePath: found.binary, args: [...rootArgs, ROOT], env, cwd: ROOT });
  const site = await origin();
  try {
    const win = await app.firstWindow();
    await expect(win.getByTestId('tab-traffic')).toBeVisible();
    expect(win.url()).toBe('netlens://app/index.html');

    // The page is a web page: no Node, no ipcRenderer, and exactly the contract's API.
    expect(
      await win.evaluate(() => [
        typeof (window as unknown as { require: unknown }).require,
        typeof (window as unknown as { process: unknown }).process,
      ]),
    ).toEqual(['undefined', 'undefined']);
    expect(await win.evaluate(() => Object.keys(window.netlens ?? {}).sort())).toEqual([...COMMAND_NAMES, 'subscribe'].sort());

    let proxyUrl: string | undefined;
    await expect
      .poll(async () => (proxyUrl = await win.evaluate(async () => (await window.netlens!.getStatus()).proxy.address?.url)), {
        timeout: 20_000,
      })
      .toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await viaProxy(proxyUrl!, `${site.url}/api/items.json`)).toBe(200);
    await expect(win.getByTestId('traffic-row').filter({ hasText: 'items.json' })).toBeVisible();

    // Errors cross the bridge as { code, message }.
    const err = await win.evaluate(() => window.netlens!.getExchange({ id: 'nope' }).catch((e: { code: string }) => e.code));
    expect(err).toBe('NL_NOT_FOUND');
  } finally {
    await app.close();
    await site.close();
  }
  // Quitting saved the capture (nothing recorded is lost).
  const sessions = fs.existsSync(path.join(dataDir, 'sessions'))
    ? fs.readdirSync(path.join(dataDir, 'sessions')).filter((f) => f.endsWith('.har'))
    : [];
  expect(sessions.length).toBe(1);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(userData, { recursive: true, force: true });
});
