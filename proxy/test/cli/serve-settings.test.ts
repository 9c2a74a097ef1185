/**
 * `netlens serve --upstream-ca FILE --insecure` starts with those settings in the core, as paths
 * Settings shows and edits (issue 15 item 9); a file that is not a certificate is refused at start.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../proxy/harness.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';

const BIN = path.resolve('bin/netlens.js');
const dataDir = tempDataDir();
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function withServe<T>(args: string[], use: (out: () => string) => Promise<T>): Promise<{ result: T | undefined; out: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--proxy-port', '0', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dataDir,
    env: { ...process.env, NETLENS_DATA_DIR: dataDir },
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const deadline = Date.now() + 30_000;
  while (!/Netlens UI: /.test(out) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  let result: T | undefined;
  try {
    if (/Netlens UI: /.test(out)) result = await use(() => out);
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  return { result, out };
}

async function status(out: string) {
  const url = new URL(/Netlens UI: (\S+)/.exec(out)![1]!);
  const res = await fetch(new URL('/api/getStatus', url), {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token')}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { ok: true; result: { proxy: { running: boolean; config: Record<string, unknown> } } }).result;
}

describe('netlens serve: upstream CA and insecure reach Settings', () => {
  it('a relative --upstream-ca becomes an absolute path in the core; --insecure is on', async () => {
    const ca = await loadOrCreateCA(path.join(dataDir, 'staging'));
    fs.writeFileSync(path.join(dataDir, 'staging.pem'), ca.certPem);
    const { result, out } = await withServe(['--upstream-ca', 'staging.pem', '--insecure'], async (o) => status(o()));
    expect(result, out).toMatchObject({
      proxy: { running: true, config: { upstreamCAFiles: [path.join(dataDir, 'staging.pem')], insecureUpstream: true } },
    });
  }, 60_000);

  it('a file that is not a certificate: the proxy does not start and says which file and why', async () => {
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'hello\n');
    const { out } = await withServe(['--upstream-ca', 'notes.txt'], async () => undefined);
    expect(out).toMatch(/Upstream CA file ".*notes\.txt" is not a PEM certificate.*\[NL_UPSTREAM_CA_FILE\]/s);
    expect(out).not.toMatch(/Proxy listening on/);
  }, 60_000);
});
