/** loadOrCreateCA keeps one authority per CA directory in a process while its files stay the same (ca.ts `authorities`). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-ca-reuse-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('loadOrCreateCA reuse', () => {
  it("loading the same CA again (a proxy restarted) keeps its hosts' certificates and TLS contexts", () => {
    const dir = tempDir();
    const first = loadOrCreateCA(dir);
    const context = first.secureContext('example.test');
    const credentials = first.hostCredentials('example.test');
    const again = loadOrCreateCA(dir);
    expect(again).toBe(first);
    // Not signed or built again.
    expect(again.secureContext('example.test')).toBe(context);
    expect(again.hostCredentials('example.test')).toBe(credentials);
  });

  it('a CA made anew in the same directory is a new authority, and other directories have their own', () => {
    const dir = tempDir();
    const first = loadOrCreateCA(dir);
    const other = loadOrCreateCA(tempDir());
    expect(other).not.toBe(first);
    expect(other.fingerprint).not.toBe(first.fingerprint);
    // The user deletes the CA directory: the next load creates another CA, whose certificates must be its own.
    fs.rmSync(path.join(dir, 'ca'), { recursive: true, force: true });
    const renewed = loadOrCreateCA(dir);
    expect(renewed).not.toBe(first);
    expect(renewed.fingerprint).not.toBe(first.fingerprint);
    expect(renewed.hostCredentials('example.test').certPem).not.toBe(first.hostCredentials('example.test').certPem);
    expect(renewed.hostCredentials('example.test').certPem).toContain(renewed.certPem);
  });
});
