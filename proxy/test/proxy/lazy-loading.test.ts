/**
 * A started proxy must not load packages it has not needed yet: each costs
 * megabytes of resident memory in a process that may idle for hours (the
 * desktop app's main process). Checked in a fresh Node process, since this
 * test runner has loaded everything already.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LAZY = ['undici', 'chrome-remote-interface', 'chrome-har-capturer', 'chrome-launcher', 'ajv', '@streamparser'];

let origin: http.Server;
let originPort = 0;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-lazy-'));

beforeAll(async () => {
  origin = http.createServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originPort = (origin.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => origin.close(r));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// Prints the lazily loaded packages present after start, then after one plain HTTP request through the proxy.
const script = (port: number) => `
import http from 'node:http';
import { createRequire } from 'node:module';
import { startProxy } from ${JSON.stringify(path.join(ROOT, 'proxy/src/server/proxy-server.ts'))};
const require = createRequire(import.meta.url);
const loaded = () => ${JSON.stringify(LAZY)}.filter((p) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + p + '/')));
const proxy = await startProxy({ port: 0, host: '127.0.0.1', dataDir: ${JSON.stringify(dataDir)} });
const atStart = loaded();
const body = await new Promise((resolve, reject) => {
  http.get({ host: '127.0.0.1', port: proxy.address.port, path: 'http://127.0.0.1:${port}/', headers: { host: '127.0.0.1:${port}' } }, (res) => {
    let b = '';
    res.on('data', (d) => (b += d)).on('end', () => resolve(b));
  }).on('error', reject);
});
console.log(JSON.stringify({ atStart, body, afterRequest: loaded() }));
await proxy.stop();
process.exit(0);
`;

describe('lazy loading', () => {
  it('a started proxy loads none of the optional packages; the first HTTP/1.1 upstream request loads undici only', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script(originPort)],
        { cwd: ROOT, timeout: 30_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out.trim().split('\n').pop()!) as { atStart: string[]; body: string; afterRequest: string[] };
    expect(r.atStart).toEqual([]);
    expect(r.body).toBe('hello');
    expect(r.afterRequest).toEqual(['undici']);
  }, 40_000);
});
