import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { readHarFile } from '../../src/har/reader.js';
import { connectionsOf } from '../../src/timeline/har.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const FIXTURES = path.join(HERE, '../fixtures/har');
const fixture = (name: string) => path.join(FIXTURES, name);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-cli-sessions-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('netlens har validate', () => {
  it('exits 0 when every file opens, printing OK and the warnings', async () => {
    const r = await cli(['har', 'validate', fixture('insomnia.har'), fixture('with-bom.har')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/insomnia\.har: OK, 1 entry\n/);
    expect(r.out).toMatch(/with-bom\.har: OK, 1 entry, 1 warning\n {2}warning file starts with a UTF-8 byte-order mark/);
  });

  it('exits 1 when one file cannot be opened, naming the bad field', async () => {
    const bad = path.join(dir, 'no-entries.har');
    fs.writeFileSync(bad, '{"log":{"version":"1.2"}}');
    const r = await cli(['har', 'validate', fixture('charles.har'), bad]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/charles\.har: OK/);
    expect(r.out).toMatch(/no-entries\.har: cannot be opened\n {2}error log\.entries: missing/);
  });

  it('prints JSON with --json, and usage errors exit 2', async () => {
    const r = await cli(['har', 'validate', '--json', fixture('charles.har')]);
    expect(JSON.parse(r.out)).toMatchObject({
      ok: true,
      entries: 1,
      errors: [],
      warnings: [{ path: 'log.entries[0].response.redirectURL' }],
    });
    expect((await cli(['har', 'check', 'x.har'])).code).toBe(2);
    expect((await cli(['har', 'validate'])).code).toBe(2);
  });
});

describe('netlens sessions', () => {
  it('imports, lists, exports, renames and removes', async () => {
    const data = ['--data-dir', path.join(dir, 'data')];
    let r = await cli(['sessions', 'list', ...data]);
    expect(r).toMatchObject({ code: 0, out: expect.stringMatching(/no sessions/) });
    r = await cli(['sessions', 'import', fixture('firefox.har'), '--name', 'fx', ...data]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/imported 14 entries as "fx"/);
    expect(r.err).toMatch(/warning .*cache\.afterRequest/);
    r = await cli(['sessions', 'list', '--json', ...data]);
    const [s] = JSON.parse(r.out);
    expect(s).toMatchObject({ name: 'fx', entryCount: 14, source: 'import' });
    const out = path.join(dir, 'fx.har');
    r = await cli(['sessions', 'export', 'fx', out, ...data]);
    expect(r.out).toMatch(/wrote 14 entries/);
    expect((await readHarFile(out)).warnings).toEqual([]);
    expect((await cli(['sessions', 'rename', s.id, 'firefox', ...data])).code).toBe(0);
    r = await cli(['sessions', 'rm', 'firefox', ...data]);
    expect(r.out).toMatch(/deleted "firefox"/);
    r = await cli(['sessions', 'rm', 'firefox', ...data]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/No session "firefox".*\[NL_NOT_FOUND\]/);
  });

  it('refuses a broken HAR with the path of the bad field and exit 1', async () => {
    const r = await cli(['sessions', 'import', fixture('broken-truncated.har'), '--data-dir', path.join(dir, 'data2')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot be imported: not valid JSON at line 5, column 1.*Nothing was imported.*\[NL_HAR_INVALID\]/);
  });
});

describe('netlens proxy --har', () => {
  it('journals while running and writes the HAR when stopped', async (ctx) => {
    const origin = http.createServer((req, res) => res.end(`you asked for ${req.url}`)).listen(0, '127.0.0.1');
    await new Promise((r) => origin.once('listening', r));
    const originPort = (origin.address() as net.AddressInfo).port;
    const har = path.join(dir, 'proxy.har');
    const dataDir = path.join(dir, 'proxy-data');
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/netlens.js'), 'proxy', '--port', '0', '--quiet', '--har', har, '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const proxyUrl = await Promise.race([
        new Promise<string>((resolve) => {
          const check = () => {
            const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
            if (m) resolve(m[1]);
            else setTimeout(check, 20);
          };
          check();
        }),
        exited.then(() => ''),
        new Promise<string>((r) => setTimeout(() => r(''), 15_000)),
      ]);
      if (!proxyUrl && /being implemented/.test(err)) {
        console.warn('SKIPPED netlens proxy --har: the proxy core is not available yet');
        ctx.skip();
      }
      expect(proxyUrl, `proxy did not start: ${err}`).toBeTruthy();
      const { port } = new URL(proxyUrl);
      for (const p of ['/one', '/two']) {
        const body = await new Promise<string>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: `http://127.0.0.1:${originPort}${p}` }, (res) => {
              let b = '';
              res.on('data', (c) => (b += c));
              res.on('end', () => resolve(b));
            })
            .on('error', reject);
        });
        expect(body).toBe(`you asked for ${p}`);
      }
      // While running, the journal is on disk.
      const journals = () => fs.readdirSync(path.join(dataDir, 'sessions')).filter((f) => f.endsWith('.journal'));
      for (
        let i = 0;
        i < 50 && !(journals().length && fs.readFileSync(path.join(dataDir, 'sessions', journals()[0]), 'utf8').split('\n').length >= 4);
        i++
      )
        await new Promise((r) => setTimeout(r, 20));
      expect(fs.readFileSync(path.join(dataDir, 'sessions', journals()[0]), 'utf8')).toMatch(/\/two/);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(err).toMatch(/HAR: 2 entries written to/);
      const { har: read, warnings } = await readHarFile(har);
      expect(warnings).toEqual([]);
      expect(read!.log.entries.map((e) => new URL(e.request.url).pathname)).toEqual(['/one', '/two']);
      // The socket timeline goes with it: each entry names its client connection, listed in log._connections.
      const connections = connectionsOf(read!.log);
      const ids = new Set(connections.map((c) => c.id));
      expect(connections.length).toBeGreaterThan(0);
      for (const e of read!.log.entries) expect(ids.has((e as { _connectionId?: string })._connectionId!)).toBe(true);
      expect(journals()).toEqual([]); // assembled into the session's HAR
    } finally {
      child.kill('SIGKILL');
      origin.close();
    }
  });
});
