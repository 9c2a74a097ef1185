/**
 * Issue 13 item 14: a CA directory missing its key or its certificate is an error
 * (NL_CA_INCOMPLETE) in every entry point, never silently replaced; a key file
 * readable by others is made 0600 and the user told once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { cli } from '../cli/run-cli.js';
import { tempDataDir } from '../proxy/harness.js';

const BIN = path.resolve('bin/netlens.js');

/** A data directory whose CA lost one file. */
function broken(which: 'netlens-ca.key' | 'netlens-ca.pem'): { dataDir: string; fingerprint: string; remaining: string } {
  const dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  fs.rmSync(path.join(dataDir, 'ca', which));
  const remaining = which === 'netlens-ca.key' ? ca.certPath : ca.keyPath;
  return { dataDir, fingerprint: ca.fingerprint, remaining: fs.readFileSync(remaining, 'utf8') };
}

describe('a CA with a missing file', () => {
  for (const which of ['netlens-ca.key', 'netlens-ca.pem'] as const) {
    it(`refuses to replace it when ${which} is missing, and leaves the other file as it was`, () => {
      const { dataDir, remaining } = broken(which);
      const other = which === 'netlens-ca.key' ? 'netlens-ca.pem' : 'netlens-ca.key';
      let error: (Error & { code?: string }) | undefined;
      try {
        loadOrCreateCA(dataDir);
      } catch (err) {
        error = err as Error & { code?: string };
      }
      expect(error?.code).toBe('NL_CA_INCOMPLETE');
      expect(error?.message).toContain(path.join(dataDir, 'ca', which));
      expect(error?.message).toMatch(/Restore the missing file.*or delete .* to create a new CA/);
      expect(fs.existsSync(path.join(dataDir, 'ca', which))).toBe(false);
      expect(fs.readFileSync(path.join(dataDir, 'ca', other), 'utf8')).toBe(remaining);
    });
  }

  it('restoring the file makes the same CA load again', () => {
    const dataDir = tempDataDir();
    const ca = loadOrCreateCA(dataDir);
    const key = fs.readFileSync(ca.keyPath);
    fs.rmSync(ca.keyPath);
    expect(() => loadOrCreateCA(dataDir)).toThrow(/incomplete/);
    fs.writeFileSync(ca.keyPath, key, { mode: 0o600 });
    expect(loadOrCreateCA(dataDir).fingerprint).toBe(ca.fingerprint);
  });

  it('a directory with files but no CA is not filled either (it might be a CA the user moved away)', () => {
    const dataDir = tempDataDir();
    fs.mkdirSync(path.join(dataDir, 'ca'));
    fs.writeFileSync(path.join(dataDir, 'ca', 'leaf.key'), 'x');
    expect(() => loadOrCreateCA(dataDir)).toThrow(expect.objectContaining({ code: 'NL_CA_INCOMPLETE' }));
  });

  it('netlens ca exits 1 with the code and what to do', async () => {
    const { dataDir } = broken('netlens-ca.key');
    const r = await cli(['ca', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^netlens ca: The Netlens CA in .* is incomplete: .*netlens-ca\.key is missing.*\[NL_CA_INCOMPLETE\]\n$/);
  });

  it('netlens proxy exits 1 with the code before listening', async () => {
    const { dataDir } = broken('netlens-ca.pem');
    const r = await cli(['proxy', '--port', '0', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/listening/);
    expect(r.err).toMatch(/netlens-ca\.pem is missing.*\[NL_CA_INCOMPLETE\]/);
  });

  it('netlens serve keeps the UI up, says why the proxy is off, and stops with 0', async () => {
    const { dataDir } = broken('netlens-ca.key');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--proxy-port', '0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!/Netlens UI: http/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/Netlens UI: http/);
      expect(out).not.toMatch(/Proxy listening/);
      expect(err).toMatch(/netlens serve: .*netlens-ca\.key is missing.*\[NL_CA_INCOMPLETE\]/);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'ca', 'netlens-ca.key'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('CA key file modes', () => {
  it.skipIf(process.platform === 'win32')('a key readable by others is made 0600, and netlens ca says so once', async () => {
    const dataDir = tempDataDir();
    const ca = loadOrCreateCA(dataDir);
    fs.chmodSync(ca.keyPath, 0o644);
    const first = await cli(['ca', '--data-dir', dataDir]);
    expect(first.code).toBe(0);
    expect(fs.statSync(ca.keyPath).mode & 0o777).toBe(0o600);
    expect(first.err).toMatch(/netlens-ca\.key was readable by other users \(mode 0644\); it is now 0600/);
    expect(first.err.match(/readable by other users/g)).toHaveLength(1);
    const second = await cli(['ca', '--data-dir', dataDir]);
    expect(second.err).toBe('');
    // The leaf key too; the CA stays the same one.
    fs.chmodSync(path.join(dataDir, 'ca', 'leaf.key'), 0o640);
    const warnings: string[] = [];
    expect(loadOrCreateCA(dataDir, { warn: (m) => warnings.push(m) }).fingerprint).toBe(ca.fingerprint);
    expect(fs.statSync(path.join(dataDir, 'ca', 'leaf.key')).mode & 0o777).toBe(0o600);
    expect(warnings.join('')).toMatch(/leaf\.key was readable by other users \(mode 0640\)/);
  });

  it('a leftover temporary directory of a dead creator is removed; a live one is left alone', () => {
    const dataDir = tempDataDir();
    const dead = path.join(dataDir, '.ca-new-999999999-x');
    const live = path.join(dataDir, `.ca-new-${process.ppid}-y`);
    fs.mkdirSync(dead, { recursive: true });
    fs.writeFileSync(path.join(dead, 'netlens-ca.key'), 'half');
    fs.mkdirSync(live);
    loadOrCreateCA(dataDir);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });
});
