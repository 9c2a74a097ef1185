import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings, sanitizeSettings, saveSettings, SETTINGS_FILE } from './settings.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-settings-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('desktop settings', () => {
  it('round-trips the proxy configuration', () => {
    const d = tmp();
    saveSettings(d, { proxy: { port: 9090, intercept: false, http2: true, nagle: true } });
    expect(loadSettings(d)).toEqual({ proxy: { port: 9090, intercept: false, http2: true, nagle: true } });
    expect(fs.readdirSync(d)).toEqual([SETTINGS_FILE]);
  });

  it('falls back to defaults for a missing or broken file', () => {
    const d = tmp();
    expect(loadSettings(d)).toEqual({ proxy: {} });
    fs.writeFileSync(path.join(d, SETTINGS_FILE), '{"proxy": {"port": 80');
    expect(loadSettings(d)).toEqual({ proxy: {} });
  });

  it('drops values of the wrong type or range', () => {
    expect(sanitizeSettings({ proxy: { port: 70000, intercept: 'yes', http2: false, extra: 1 } })).toEqual({ proxy: { http2: false } });
    expect(sanitizeSettings(null)).toEqual({ proxy: {} });
  });

  it('keeps the upstream CA paths, insecure and body limit, dropping bad ones', () => {
    const d = tmp();
    const proxy = { port: 8080, upstreamCAFiles: ['/etc/ssl/staging-ca.pem'], insecureUpstream: true, bodyCaptureLimit: 1024 };
    saveSettings(d, { proxy });
    expect(loadSettings(d)).toEqual({ proxy });
    expect(
      sanitizeSettings({ proxy: { upstreamCAFiles: ['relative.pem', 7, '/ok.pem'], insecureUpstream: 'yes', bodyCaptureLimit: -1 } }),
    ).toEqual({ proxy: { upstreamCAFiles: ['/ok.pem'] } });
    expect(sanitizeSettings({ proxy: { upstreamCAFiles: 'x', bodyCaptureLimit: 2 ** 40 } })).toEqual({ proxy: {} });
  });
});
