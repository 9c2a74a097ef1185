/** Never an open relay: loopback by default, non-loopback clients refused; CA files private. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { admitClient, isLoopbackAddress, isSelf } from '../../src/server/client-guard.js';
import { loadOrCreateCA, tempDataDir, testProxy } from './harness.js';

describe('loopback guard', () => {
  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', '0.0.0.0', '', undefined])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
  });

  it('refuses a non-loopback client with 403 and an explanation, unless allowed', () => {
    const written: string[] = [];
    const fake = Object.assign(
      new Duplex({
        read() {},
        write(c, _e, cb) {
          written.push(String(c));
          cb();
        },
      }),
      { remoteAddress: '203.0.113.7' },
    );
    expect(admitClient(fake as unknown as net.Socket, false)).toBe(false);
    expect(written.join('')).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(written.join('')).toMatch(/--allow-remote/);
    const fake2 = Object.assign(
      new Duplex({
        read() {},
        write(_c, _e, cb) {
          cb();
        },
      }),
      { remoteAddress: '203.0.113.7' },
    );
    expect(admitClient(fake2 as unknown as net.Socket, true)).toBe(true);
  });

  it('detects requests aimed at the proxy itself', () => {
    expect(isSelf('127.0.0.1', 8080, { host: '127.0.0.1', port: 8080 })).toBe(true);
    expect(isSelf('localhost', 8080, { host: '127.0.0.1', port: 8080 })).toBe(true);
    expect(isSelf('127.0.0.1', 8081, { host: '127.0.0.1', port: 8080 })).toBe(false);
  });

  it('listens on 127.0.0.1 by default', async () => {
    const tp = await testProxy();
    try {
      expect(tp.proxy.address.host).toBe('127.0.0.1');
      expect(tp.proxy.address.url).toBe(`http://127.0.0.1:${tp.proxy.address.port}`);
    } finally {
      await tp.stop();
    }
  });

  it('reports a taken port with NL_PORT_IN_USE', async () => {
    const tp = await testProxy();
    try {
      await expect(testProxy({ port: tp.proxy.address.port })).rejects.toMatchObject({ code: 'NL_PORT_IN_USE' });
    } finally {
      await tp.stop();
    }
  });
});

describe('certificate authority', () => {
  it('creates the CA on first use with a 0700 directory and 0600 key files, and reloads the same CA', () => {
    const dir = tempDataDir();
    const ca = loadOrCreateCA(dir);
    expect(fs.statSync(path.join(dir, 'ca')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(ca.keyPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'ca', 'leaf.key')).mode & 0o777).toBe(0o600);
    const again = loadOrCreateCA(dir);
    expect(again.fingerprint).toBe(ca.fingerprint);
    expect(again.leafSpkiHash).toBe(ca.leafSpkiHash);
    const x509 = new crypto.X509Certificate(ca.certPem);
    expect(x509.ca).toBe(true);
  });

  it('signs host certificates with one shared leaf key, SANs for names and IPs, chained to the CA', () => {
    const ca = loadOrCreateCA(tempDataDir());
    const a = new crypto.X509Certificate(ca.issue(['example.test']).certPem);
    const b = new crypto.X509Certificate(ca.issue(['127.0.0.1', 'localhost']).certPem);
    const spki = (c: crypto.X509Certificate) =>
      crypto
        .createHash('sha256')
        .update(c.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64');
    expect(spki(a)).toBe(ca.leafSpkiHash);
    expect(spki(b)).toBe(ca.leafSpkiHash);
    expect(a.subjectAltName).toContain('DNS:example.test');
    expect(b.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(b.checkHost('localhost')).toBe('localhost');
    expect(a.verify(new crypto.X509Certificate(ca.certPem).publicKey)).toBe(true);
    // Under the 398-day limit browsers enforce on server certificates.
    const days = (Date.parse(a.validTo) - Date.parse(a.validFrom)) / 86_400_000;
    expect(days).toBeLessThanOrEqual(398);
  });

  it('explains damaged CA files instead of crashing', () => {
    const dir = tempDataDir();
    const ca = loadOrCreateCA(dir);
    fs.writeFileSync(ca.certPath, 'not a certificate');
    expect(() => loadOrCreateCA(dir)).toThrow(/damaged.*Delete that directory/);
  });
});
