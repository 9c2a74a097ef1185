/**
 * `netlens record` names each URL the proxy could not fetch, with its code (real child
 * process, real Chromium): a tiny page whose one image points at a port nothing listens on.
 * Through the proxy the browser gets a 502 for it, not a failed load, so the list comes
 * from the proxy's own errors.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../proxy/harness.js';
import { chromePath } from './chrome-available.js';

const BIN = path.resolve('bin/netlens.js');
let dir: string;
let page: http.Server;
let pagePort = 0;
let deadPort = 0;

beforeAll(async () => {
  dir = tempDataDir();
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  deadPort = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  page = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>t</title><p>hi</p><img src="http://127.0.0.1:${deadPort}/broken.png">`);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pagePort = (page.address() as net.AddressInfo).port;
});
afterAll(async () => {
  page?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!chromePath)('netlens record: failed requests named with their codes', () => {
  it('prints the broken image URL with NL_UPSTREAM_REFUSED, and the HAR has the 502 with _errorCode', async () => {
    const out = path.join(dir, 'page.har');
    const url = `http://127.0.0.1:${pagePort}/`;
    const r = await run(['record', url, '--out', out, '--quiet-ms', '300', '--timeout-ms', '20000', '--data-dir', path.join(dir, 'data')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const broken = `http://127.0.0.1:${deadPort}/broken.png`;
    expect(r.stdout).toMatch(/Failed requests \(1\):/);
    expect(r.stdout).toContain(`  NL_UPSTREAM_REFUSED ${broken}: `);
    // The page itself is not listed.
    expect(r.stdout).not.toContain(`NL_UPSTREAM_REFUSED ${url}:`);
    const har = JSON.parse(fs.readFileSync(out, 'utf8'));
    const e = har.log.entries.find((x: { request: { url: string } }) => x.request.url === broken);
    expect(e.response.status).toBe(502);
    expect(e._errorCode).toBe('NL_UPSTREAM_REFUSED');
  }, 90_000);
});
