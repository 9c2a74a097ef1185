/**
 * Client replay: a session recorded through the proxy, the origin changed, the
 * requests resent (through a proxy and directly): exactly the changed requests
 * are reported, with what changed. Plus the CLI both ways and bad input.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, type Origin } from '../proxy/harness.js';
import { loadReplayHar, replayableEntries, type ReplayEntry } from '../../src/replay/load.js';
import { resend } from '../../src/replay/client-replay.js';
import { summarizeResend } from '../../src/replay/report.js';
import { startProxy } from '../../src/server/proxy-server.js';
import { readHarFile } from '../../src/har/reader.js';
import { curlVia, pageHandler, recordHar, type PageState } from './helpers.js';

const BIN = path.resolve('bin/netlens.js');
const dataDir = tempDataDir();
const harFile = path.join(dataDir, 'session.har');
const state: PageState = { counter: 0, bodies: { '/a': 'same', '/b': 'short', '/c': 'fine', '/d': 'abcd' }, status: {} };
let https1: Origin;
let plain: Origin;
let entries: ReplayEntry[];

beforeAll(async () => {
  const ca = loadOrCreateCA(dataDir);
  https1 = await httpsOrigin(ca, { h2: false }, pageHandler(state));
  plain = await httpOrigin(pageHandler(state));
  const urls = [`${https1.url}/a`, `${https1.url}/b`, `${plain.url}/c`, `${plain.url}/d`];
  await recordHar(dataDir, harFile, urls.length + 1, async (proxy) => {
    for (const u of urls) expect((await curlVia(proxy.address.url, dataDir, u)).code).toBe(0);
    expect((await curlVia(proxy.address.url, dataDir, `${https1.url}/api?q=1`, ['--data-binary', 'payload'])).code).toBe(0);
  });
  entries = (await loadReplayHar(harFile)).entries;
  expect(entries.map((e) => new URL(e.entry.request.url).pathname)).toEqual(['/a', '/b', '/c', '/d', '/api']);
  // The origin changes: /b grows, /c fails, /d has another body of the same length.
  state.bodies['/b'] = 'much longer now';
  state.status['/c'] = 500;
  state.bodies['/d'] = 'wxyz';
}, 60_000);

afterAll(async () => {
  await https1.close();
  await plain.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const changedPaths = (rows: Awaited<ReturnType<typeof resend>>['rows']) =>
  rows.filter((r) => r.changes.length > 0).map((r) => [new URL(r.url).pathname, r.changes]);

describe('client replay (resend)', () => {
  it('through a proxy: reports exactly the changed requests, and the proxy records them again', async () => {
    const proxy = await startProxy({ port: 0, dataDir });
    let recorded = 0;
    proxy.events.subscribe((e) => (recorded += e.type === 'complete' ? 1 : 0));
    try {
      const result = await resend(entries, { proxyUrl: proxy.address.url, ca: [proxy.ca.certPem], concurrency: 3 });
      expect(changedPaths(result.rows)).toEqual([
        ['/b', ['size']],
        ['/c', ['status']],
        ['/d', ['body']],
      ]);
      expect(result.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
      expect(result.rows[2]).toMatchObject({ before: { status: 200 }, after: { status: 500 } });
      expect(result.rows[1]).toMatchObject({ before: { size: 5 }, after: { size: 15 } });
      // The POST went out with its recorded body (the origin echoes it, unchanged).
      expect(result.rows[4].changes).toEqual([]);
      expect(JSON.parse(result.entries[4].response.content.text!)).toEqual({ got: 'payload', query: '?q=1' });
      expect(summarizeResend(result)).toEqual({ total: 5, changed: 3, failed: 0, slower: result.rows.filter((r) => r.slower).length });
      const until = Date.now() + 5000;
      while (recorded < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(recorded).toBe(5);
    } finally {
      await proxy.stop();
    }
  }, 30_000);

  it('directly, sequentially: the same changes; an origin that is down is reported failed', async () => {
    const ca = loadOrCreateCA(dataDir);
    const result = await resend(entries, { ca: [ca.certPem] });
    expect(changedPaths(result.rows)).toEqual([
      ['/b', ['size']],
      ['/c', ['status']],
      ['/d', ['body']],
    ]);
    const gone = await httpOrigin();
    const url = `${gone.url}/x`;
    await gone.close();
    const e = { ...entries[2], entry: { ...entries[2].entry, request: { ...entries[2].entry.request, url } } };
    const failed = await resend([e], { timeoutMs: 5000 });
    expect(failed.rows[0].changes).toEqual(['failed']);
    expect(failed.rows[0].error?.code).toBe('NL_UPSTREAM_REFUSED');
    expect(failed.entries[0].response.status).toBe(0);
  }, 30_000);
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('netlens replay (CLI)', () => {
  it('--resend prints the comparison, writes the new HAR and exits 1 when something changed', async () => {
    for (const direct of [false, true]) {
      const out = path.join(dataDir, `new-${direct}.har`);
      const r = await run([
        'replay',
        harFile,
        '--resend',
        '--out',
        out,
        '--data-dir',
        dataDir,
        '--concurrency',
        '2',
        ...(direct ? ['--direct', '--upstream-ca', loadOrCreateCA(dataDir).certPath] : []),
      ]);
      expect(r.stderr).not.toMatch(/NL_/);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/Resent 5 requests: 3 changed, 0 failed, 2 unchanged/);
      expect(r.stdout).toMatch(/! GET http:\/\/127\.0\.0\.1:\d+\/c {2}200 → 500/);
      const har = await readHarFile(out);
      expect(har.errors).toEqual([]);
      expect(har.har!.log.entries.length).toBe(5);
    }
    const only = await run(['replay', harFile, '--resend', '--only', '0', '--data-dir', dataDir]);
    expect(only.code).toBe(0);
    expect(only.stdout).toMatch(/Resent 1 request: 0 changed, 0 failed, 1 unchanged/);
  }, 60_000);

  it('--serve answers from the recording until Ctrl-C, then prints the report', async () => {
    const child = spawn(process.execPath, [BIN, 'replay', harFile, '--serve', '--port', '0', '--extra', '404', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    try {
      const until = Date.now() + 20_000;
      while (!/listening on (http:\/\/\S+)/.test(stdout) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const proxyUrl = /listening on (http:\/\/\S+)/.exec(stdout)![1];
      const hit = await curl(['-x', proxyUrl, `${plain.url}/c`]);
      // Recorded before the origin changed: 200 "fine", not today's 500.
      expect(hit.stdout).toBe('fine');
      const miss = await curl(['-x', proxyUrl, '-o', '/dev/null', '-w', '%{http_code}', `${plain.url}/never`]);
      expect(miss.stdout).toBe('404');
    } finally {
      child.kill('SIGINT');
    }
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /Replay: 1 request answered from the recording; unmatched: 0 forwarded, 1 answered 404, 0 killed; 4 of 5 recorded responses never served/,
    );
  }, 60_000);
});

describe('bad input', () => {
  it('an invalid HAR or one without responses gets a clear error (CLI exit 1)', async () => {
    const bad = path.join(dataDir, 'bad.har');
    fs.writeFileSync(bad, '{"log": {"entries": [');
    await expect(loadReplayHar(bad)).rejects.toMatchObject({ code: 'NL_HAR_INVALID', message: expect.stringMatching(/truncated/) });
    const r = await run(['replay', bad, '--serve', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be replayed: truncated.*\[NL_HAR_INVALID\]/);

    const failed = path.join(dataDir, 'failed.har');
    const har = JSON.parse(fs.readFileSync(harFile, 'utf8'));
    for (const e of har.log.entries) e.response = { ...e.response, status: 0, _error: 'refused' };
    fs.writeFileSync(failed, JSON.stringify(har));
    await expect(loadReplayHar(failed)).rejects.toMatchObject({
      code: 'NL_REPLAY_NO_RESPONSES',
      message: expect.stringMatching(/5 entries but none with a response/),
    });
    const r2 = await run(['replay', failed, '--resend', '--data-dir', dataDir]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/NL_REPLAY_NO_RESPONSES/);
    expect(() => replayableEntries({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [] } })).toThrow(/no entries/);
  }, 30_000);

  it('usage errors exit 2', async () => {
    expect((await run(['replay', harFile])).code).toBe(2);
    expect((await run(['replay', harFile, '--serve', '--resend'])).code).toBe(2);
    expect((await run(['replay', harFile, '--serve', '--extra', 'drop'])).stderr).toMatch(/--extra must be forward, 404 or kill/);
    expect((await run(['replay', harFile, '--resend', '--only', '9'])).code).toBe(2);
  }, 30_000);
});
