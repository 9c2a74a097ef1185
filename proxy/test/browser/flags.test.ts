import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromeArgs } from '../../src/browser/flags.js';
import { findChrome } from '../../src/browser/find-chrome.js';
import { chromePath } from './chrome-available.js';

describe('chromeArgs', () => {
  it('keeps Chrome from calling home and uses a fresh profile', () => {
    const args = chromeArgs({ userDataDir: '/tmp/p1', noSandbox: false });
    for (const f of [
      '--user-data-dir=/tmp/p1',
      '--headless',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-extensions',
      '--disable-pings',
      '--no-default-browser-check',
      '--gaia-url=http://127.0.0.1:9',
      '--component-updater=url-source=http://127.0.0.1:9/',
      '--remote-debugging-port=0',
    ]) {
      expect(args).toContain(f);
    }
    // Exactly one --disable-features (Chrome honours only one), with the time queries off.
    const features = args.filter((a) => a.startsWith('--disable-features='));
    expect(features).toHaveLength(1);
    expect(features[0]).toContain('NetworkTimeServiceQuerying');
    expect(args).not.toContain('--no-sandbox');
    expect(args.at(-1)).toBe('about:blank');
  });

  it('wires the proxy, loopback proxying and SPKI trust; never a blanket certificate bypass', () => {
    const args = chromeArgs({
      userDataDir: '/tmp/p',
      proxyUrl: 'http://127.0.0.1:8123',
      trustSpkiHashes: ['abc=', 'def='],
      http2: false,
      headless: false,
      noSandbox: true,
    });
    expect(args).toContain('--proxy-server=http://127.0.0.1:8123');
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    expect(args).toContain('--ignore-certificate-errors-spki-list=abc=,def=');
    expect(args).toContain('--disable-http2');
    expect(args).toContain('--no-sandbox');
    expect(args).not.toContain('--headless');
    expect(args).not.toContain('--ignore-certificate-errors');
  });

  it('is direct with HTTP/2 by default', () => {
    const args = chromeArgs({ userDataDir: '/tmp/p' });
    expect(args.some((a) => a.startsWith('--proxy-server'))).toBe(false);
    expect(args).not.toContain('--disable-http2');
  });
});

describe('findChrome', () => {
  it('prefers CHROME_PATH when it is executable', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-fc-'));
    const exe = path.join(dir, 'chrome');
    fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    try {
      expect(findChrome({ env: { CHROME_PATH: exe }, search: () => ['/nonexistent'] })).toBe(exe);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says clearly when CHROME_PATH is wrong', () => {
    expect(() => findChrome({ env: { CHROME_PATH: '/no/such/chrome' } })).toThrow(
      expect.objectContaining({
        code: 'NL_BROWSER_NOT_FOUND',
        message: expect.stringContaining('CHROME_PATH is set to "/no/such/chrome"'),
      }),
    );
  });

  it('tells how to install a browser when none is found', () => {
    expect(() => findChrome({ env: {}, search: () => ['/no/such/chromium'] })).toThrow(
      expect.objectContaining({ code: 'NL_BROWSER_NOT_FOUND', message: expect.stringMatching(/apt-get install chromium.*CHROME_PATH/) }),
    );
    expect(() =>
      findChrome({
        env: {},
        search: () => {
          throw new Error('unsupported platform');
        },
      }),
    ).toThrow(expect.objectContaining({ code: 'NL_BROWSER_NOT_FOUND' }));
  });

  it.skipIf(!chromePath)("finds this machine's Chromium through chrome-launcher's search", () => {
    const found = findChrome({ env: {} });
    expect(fs.statSync(found).isFile()).toBe(true);
  });
});
