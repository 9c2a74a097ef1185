/**
 * Issue 15 item 1: `netlens lab|record|replay` against an HTTPS origin whose
 * certificate comes from a private CA (made here; not the lab's Netlens CA).
 * Real child processes, as a user runs them. Chrome loads are few (1 run per
 * cell, a one-image page): the machine is small.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { startTestSite, type TestSite } from '../../src/lab/site/test-site.js';
import { chromePath } from '../browser/chrome-available.js';

const BIN = path.resolve('bin/netlens.js');
const WARNING = /^netlens: warning: --insecure: upstream TLS certificates are not verified/m;
let dir: string;
let dataDir: string;
let privateCA: string;
let otherCA: string;
let site: TestSite;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-upstream-ca-'));
  dataDir = path.join(dir, 'netlens');
  // The origin's CA lives apart from the lab's data directory: the lab's own CA must not vouch for it.
  const ca = loadOrCreateCA(path.join(dir, 'private'));
  privateCA = ca.certPath;
  otherCA = loadOrCreateCA(path.join(dir, 'other')).certPath;
  site = await startTestSite({ images: 1, host: '127.0.0.1', ca, dataDir: path.join(dir, 'private') });
  expect(site.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
}, 60_000);

afterAll(async () => {
  await site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], timeout = 150_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout, maxBuffer: 64 * 2 ** 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const lab = (...extra: string[]) =>
  run(['lab', '--url', site.url, '--cells', 'direct+h2,proxy+h2+intercept', '--runs', '1', '--json', '--data-dir', dataDir, ...extra]);

interface LabJson {
  config: { upstreamCAs?: number; insecure?: boolean; originSpkiHash?: string };
  cells: { id: string; runs: { ok: boolean; error?: { message: string } }[] }[];
}

describe('lab --upstream-ca / --insecure: preflight before any run', () => {
  it('without the flag: fails before any page load and says to give --upstream-ca', async () => {
    const before = site.stats.requests;
    const r = await lab();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/NL_UPSTREAM_TLS/);
    expect(r.stderr).toMatch(/certificate of https:\/\/127\.0\.0\.1:\d+ did not verify/);
    expect(r.stderr).toMatch(/give its CA \(PEM\) with --upstream-ca FILE/);
    expect(r.stdout).toBe('');
    expect(site.stats.requests).toBe(before); // the preflight is a TLS handshake only: no page was requested
  }, 60_000);

  it('with a CA that did not sign the origin: fails before any run, saying the given CA does not verify it', async () => {
    const before = site.stats.requests;
    const r = await lab('--upstream-ca', otherCA);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/NL_UPSTREAM_TLS/);
    expect(r.stderr).toMatch(/the CA file given with --upstream-ca does not verify it/);
    expect(site.stats.requests).toBe(before);
  }, 60_000);

  it('bad inputs: a file that is not a certificate, and the flags without --url, are refused up front', async () => {
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, 'hello\n');
    let r = await lab('--upstream-ca', notes);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Upstream CA file ".*notes\.txt" is not a PEM certificate/);
    r = await run(['lab', '--upstream-ca', privateCA, '--data-dir', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--upstream-ca and --insecure are for an https --url origin/);
    r = await run(['lab', '--insecure', '--data-dir', dataDir]);
    expect(r.code).toBe(2);
  }, 60_000);
});

describe.skipIf(!chromePath)('lab / record / replay against the private-CA origin (Chrome)', () => {
  it('lab --upstream-ca: the direct and the intercepting proxy cell both load the page', async () => {
    const r = await lab('--upstream-ca', privateCA);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(WARNING);
    const result = JSON.parse(r.stdout) as LabJson;
    expect(result.config.upstreamCAs).toBe(1);
    expect(result.config.originSpkiHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify(result.config)).not.toMatch(/BEGIN CERTIFICATE/);
    for (const c of result.cells)
      expect(
        c.runs.map((x) => x.ok),
        `${c.id}: ${JSON.stringify(c.runs)}`,
      ).toEqual([true]);
  }, 180_000);

  it('lab --insecure: works, and warns on stderr in one line', async () => {
    const r = await lab('--insecure');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(new RegExp(WARNING.source, 'gm'))).toHaveLength(1);
    const result = JSON.parse(r.stdout) as LabJson;
    expect(result.config.insecure).toBe(true);
    for (const c of result.cells)
      expect(
        c.runs.map((x) => x.ok),
        `${c.id}: ${JSON.stringify(c.runs)}`,
      ).toEqual([true]);
  }, 180_000);

  it('record --upstream-ca saves the page; replay --resend --upstream-ca resends it; replay --insecure warns', async () => {
    const har = path.join(dir, 'page.har');
    let r = await run(['record', site.url, '--upstream-ca', privateCA, '--out', har, '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
    const entries = (JSON.parse(fs.readFileSync(har, 'utf8')) as { log: { entries: { response: { status: number } }[] } }).log.entries;
    expect(entries.length).toBeGreaterThan(1);
    expect(
      entries.every((e) => e.response.status === 200),
      JSON.stringify(entries.map((e) => e.response.status)),
    ).toBe(true);

    r = await run(['replay', har, '--resend', '--upstream-ca', privateCA, '--data-dir', dataDir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Resent ${entries.length} requests: \\d+ changed, 0 failed`));
    expect(r.stderr).not.toMatch(WARNING);

    r = await run(['replay', har, '--resend', '--upstream-ca', otherCA, '--data-dir', dataDir]);
    expect(r.stdout).not.toMatch(/, 0 failed/); // the wrong CA: every request fails verification

    r = await run(['replay', har, '--resend', '--insecure', '--data-dir', dataDir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(WARNING);
    expect(r.stdout).toMatch(/, 0 failed/);
  }, 240_000);
});
