/** `netlens proxy --relay MODE`: a bad mode is a usage error; `naive` is said at start and the proxy relays. */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { curl, echo, httpOrigin } from '../proxy/harness.js';

const BIN = path.resolve('bin/netlens.js');

describe('netlens proxy --relay', () => {
  it('rejects an unknown mode with exit 2 naming the valid ones', async () => {
    const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'proxy', '--port', '0', '--relay', 'fast'], { timeout: 30_000 }, (err, _out, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--relay must be one of coalesce, naive \(got "fast"\)/);
  });

  it('--relay naive: the settings line says so and exchanges go through', async () => {
    const origin = await httpOrigin(echo);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-cli-'));
    const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--data-dir', dir, '--relay', 'naive', '--nagle'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 20_000;
      while (!(/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out) && /CA certificate: /.test(out)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toMatch(/Nagle on · relay naive · data /);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      const r = await curl(['-x', url, `${origin.url}/naive`]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ method: 'GET', url: '/naive' });
    } finally {
      child.kill('SIGKILL');
      await origin.close();
    }
  });
});
