/**
 * `netlens replay FILE --resend` against an HTTPS origin addressed by IP (the
 * built-in site on 127.0.0.1): through the CONNECT tunnel the TLS handshake
 * must check the certificate against the IP, not against Node's "localhost"
 * fallback (every request used to fail "Host: localhost"). Real child process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA, tempDataDir } from '../proxy/harness.js';
import { startTestSite, type TestSite } from '../../src/lab/site/test-site.js';
import { curlVia, recordHar } from './helpers.js';

const BIN = path.resolve('bin/netlens.js');
const dataDir = tempDataDir();
const harFile = path.join(dataDir, 'site.har');
let site: TestSite;
const paths = ['/', '/style.css', '/img/0.png', '/img/1.png'];

beforeAll(async () => {
  site = await startTestSite({ images: 2, host: '127.0.0.1', ca: loadOrCreateCA(dataDir), dataDir });
  expect(site.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
  const n = await recordHar(dataDir, harFile, paths.length, async (proxy) => {
    for (const p of paths) expect((await curlVia(proxy.address.url, dataDir, new URL(p, site.url).href)).code).toBe(0);
  });
  expect(n).toBe(paths.length);
}, 60_000);

afterAll(async () => {
  await site?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('netlens replay --resend to an IP-address HTTPS host', () => {
  it('through its own proxy and directly: every request succeeds, none "does not match certificate"', async () => {
    const ca = loadOrCreateCA(dataDir).certPath;
    for (const direct of [false, true]) {
      const r = await run(['replay', harFile, '--resend', '--data-dir', dataDir, '--upstream-ca', ca, ...(direct ? ['--direct'] : [])]);
      expect(r.stdout + r.stderr).not.toMatch(/altnames|does not match/);
      expect(r.stdout).toMatch(new RegExp(`Resent ${paths.length} requests: 0 changed, 0 failed`));
      expect(r.code).toBe(0);
    }
  }, 90_000);
});
