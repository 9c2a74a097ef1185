/**
 * The real bundled main process (dist/electron/main.mjs) with the real core,
 * run in plain Node against a stand-in 'electron' module (testing/electron-stub.mjs):
 * no Electron binary can run here, but everything main.ts does around it can.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../proxy/src/api/contract.js';
import { commandChannel } from './channels.js';
import { CONTENT_SECURITY_POLICY, windowOptions } from './window.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
let report: Record<string, any>;
let packagedReport: Record<string, any>;

/** Runs the bundled main against the stub and returns its report; `packaged` sets app.isPackaged. */
function drive(packaged: boolean): Record<string, any> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-main-data-'));
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-main-user-'));
  dirs.push(dataDir, userData);
  const out = execFileSync(
    process.execPath,
    ['--import', './electron/testing/register-stub.mjs', 'electron/testing/drive-main.mjs', path.join(root, 'dist/electron/main.mjs')],
    {
      cwd: root,
      // STUB_USER_DATA is where Electron's default would be; NETLENS_USER_DATA_DIR must win.
      env: {
        ...process.env,
        NETLENS_DATA_DIR: dataDir,
        NETLENS_PROXY_PORT: '0',
        STUB_APP_PATH: root,
        STUB_USER_DATA: path.join(userData, 'not-here'),
        NETLENS_USER_DATA_DIR: userData,
        STUB_PACKAGED: packaged ? '1' : '',
      },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: root, stdio: 'pipe' });
  report = drive(false);
  packagedReport = drive(true);
}, 120_000);
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('bundled main process (stubbed Electron, real core)', () => {
  it('registers the app scheme as standard and secure, without CORS', () => {
    expect(report.schemes).toEqual([{ scheme: 'netlens', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  });

  it('registers one IPC handler per contract command, starts the proxy, opens the locked-down window', () => {
    expect(report.handlers).toEqual(COMMAND_NAMES.map(commandChannel).sort());
    expect(report.window.url).toBe('netlens://app/index.html');
    expect(report.window.webPreferences).toEqual(
      windowOptions({ preload: path.join(root, 'dist/electron/preload.cjs'), devTools: true }).webPreferences,
    );
    expect(report.proxyMenu).toBe('Stop proxy');
    expect(report.menu).toEqual(['File', 'editMenu', 'View', 'Proxy', 'Lab', 'Help']);
  });

  it('locks down every web contents: navigation away prevented, new windows denied, https opened outside', () => {
    expect(report.lockdown).toEqual({ prevented: true, newWindow: 'deny', opened: ['https://example.com/', 'https://example.org/'] });
  });

  it('from a checkout (not packaged) keeps DevTools: webPreferences, View menu, shortcuts', () => {
    expect(report.window.webPreferences.devTools).toBe(true);
    expect(report.viewMenu).toContain('toggleDevTools');
    expect(report.devTools).toEqual({
      listeners: ['will-attach-webview', 'will-navigate', 'will-redirect'],
      keys: { F12: false, a: false },
      closed: 0,
    });
  });

  it('packaged (issue 13 item 15): no DevTools in the window, the View menu or the keyboard', () => {
    const preload = path.join(root, 'dist/electron/preload.cjs');
    expect(packagedReport.window.webPreferences).toEqual(windowOptions({ preload, devTools: false }).webPreferences);
    expect(packagedReport.viewMenu).not.toContain('toggleDevTools');
    expect(packagedReport.viewMenu).toContain('reload');
    expect(packagedReport.devTools).toEqual({
      listeners: ['before-input-event', 'devtools-opened', 'will-attach-webview', 'will-navigate', 'will-redirect'],
      keys: { F12: true, a: false },
      closed: 1,
    });
    expect(packagedReport.proxied).toBe(200);
  });

  it('refuses foreign senders and carries core errors as { code, message }', () => {
    expect(report.foreign).toMatchObject({ ok: false, error: { code: 'NL_API_FORBIDDEN' } });
    expect(report.notFound).toMatchObject({ ok: false, error: { code: 'NL_NOT_FOUND' } });
  });

  it('a request through the proxy reaches the window as a batched exchanges event', () => {
    expect(report.proxied).toBe(200);
    expect(report.event).toBe('netlens:event');
  });

  it('closing the window continues a request a breakpoint paused (main stays subscribed to the core)', () => {
    expect(report.breakpointOnClose).toEqual({ pausedBefore: 1, status: 200, pausedAfter: 0 });
  });

  it('serves the built renderer on netlens://app with the CSP, and nothing outside it', () => {
    expect(report.page).toEqual({ status: 200, csp: CONTENT_SECURITY_POLICY, type: 'text/html; charset=utf-8', hasRoot: true });
    expect(report.escape).toBe(404);
    expect(report.clipboard).toEqual([true, false]);
  });

  it('quitting keeps the capture as a session, stops the proxy and removes the handlers', () => {
    expect(report.savedAtQuit).toBe(1);
    expect(report.proxyAfterQuit).toBe('ECONNREFUSED');
    expect(report.handlersAfterQuit).toBe(0);
  });

  it('persists proxy settings in userData (NETLENS_USER_DATA_DIR) without the port forced by NETLENS_PROXY_PORT', () => {
    // Settings (issue 15 item 9) are saved with the rest: upstream CA files, insecure, body capture limit.
    expect(report.settings).toEqual({
      proxy: {
        intercept: true,
        http2: true,
        nagle: false,
        upstreamCAFiles: [],
        insecureUpstream: false,
        bodyCaptureLimit: 4 * 1024 * 1024,
      },
    });
  });
});
