/** The `netlens` binary as users run it: help, version, usage errors, and `proxy` end to end. */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { curl, echo, httpOrigin } from '../proxy/harness.js';

const BIN = path.resolve('bin/netlens.js');

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('netlens CLI', () => {
  it('--help lists the commands and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: netlens <command>/);
    expect(r.stdout).toMatch(/\n {2}proxy /);
    expect(r.stdout).toMatch(/\n {2}ca /);
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`netlens ${pkg.version}`);
  });

  it('unknown flags and commands exit 2 with a clear message', async () => {
    const a = await run(['--frobnicate']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown flag "--frobnicate"/);
    const b = await run(['proxy', '--bogus']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--bogus/);
    const c = await run(['teleport']);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/unknown command "teleport"/);
    const d = await run(['proxy', '--port', 'eighty']);
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/--port must be a whole number/);
  });

  it('ca prints the certificate path and SPKI hash (NETLENS_DATA_DIR honoured)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-cli-'));
    const r = await run(['ca', '--json'], { NETLENS_DATA_DIR: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.certPath).toBe(path.join(dir, 'ca', 'netlens-ca.pem'));
    expect(fs.existsSync(out.certPath)).toBe(true);
    expect(out.leafSpkiHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('proxy prints its address, one line per exchange, and stops cleanly on SIGINT', async () => {
    const origin = await httpOrigin(echo);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-cli-'));
    const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 20_000;
      // The address and the CA lines may arrive in separate chunks: wait for both.
      while (!(/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out) && /CA certificate: /.test(out)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      expect(out).toMatch(/CA certificate: .*netlens-ca\.pem/);
      const r = await curl(['-x', url, `${origin.url}/from-cli`]);
      expect(r.code).toBe(0);
      while (!out.includes('/from-cli') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(new RegExp(`GET +${origin.url}/from-cli 200 http/1.1 [\\d.]+ ms`));
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await origin.close();
    }
  });
});
