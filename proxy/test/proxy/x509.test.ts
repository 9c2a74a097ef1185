/**
 * Certificates built by tls/x509.ts, checked by parsers that share no code with
 * it: node:crypto's X509Certificate (OpenSSL), node-forge, and `openssl verify`.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { tempDataDir } from './harness.js';

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasOpenssl) console.log('x509.test: `openssl verify` checks skipped: no openssl binary on PATH');

const ext = (c: forge.pki.Certificate, name: string) => c.getExtension(name) as Record<string, unknown> | null;

describe('certificates built with node:crypto (x509.ts)', () => {
  const dir = tempDataDir();
  const ca = loadOrCreateCA(dir);
  const leafPem =
    ca.issue(['example.test', '127.0.0.1', '::1', 'localhost']).certPem.split('-----END CERTIFICATE-----')[0] +
    '-----END CERTIFICATE-----\n';

  it('the CA: v3, self-signed, cA critical, keyCertSign, subject key identifier as forge computes it', () => {
    const x = new crypto.X509Certificate(ca.certPem);
    expect(x.ca).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.subject).toMatch(/CN=Netlens CA/);
    expect(x.subject).toBe(x.issuer);
    const f = forge.pki.certificateFromPem(ca.certPem);
    expect(f.version).toBe(2);
    expect(ext(f, 'basicConstraints')).toMatchObject({ cA: true, critical: true });
    expect(ext(f, 'keyUsage')).toMatchObject({ keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true });
    expect(ext(f, 'subjectKeyIdentifier')!.subjectKeyIdentifier).toBe(f.generateSubjectKeyIdentifier().toHex());
    expect(f.verify(f)).toBe(true);
  });

  it('a host certificate: SANs for names, IPv4 and IPv6, serverAuth only, not a CA, signed by the CA, AKI = the CA key id', () => {
    const x = new crypto.X509Certificate(leafPem);
    expect(x.ca).toBe(false);
    expect(x.verify(new crypto.X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(x.checkHost('example.test')).toBe('example.test');
    expect(x.checkHost('other.test')).toBeUndefined();
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkIP('::1')).toBe('::1');
    expect(x.subject).toContain('CN=example.test');
    expect(x.issuer).toBe(new crypto.X509Certificate(ca.certPem).subject);
    const f = forge.pki.certificateFromPem(leafPem);
    const caF = forge.pki.certificateFromPem(ca.certPem);
    expect(caF.verify(f)).toBe(true);
    expect(ext(f, 'basicConstraints')).toMatchObject({ cA: false });
    expect(ext(f, 'keyUsage')).toMatchObject({ digitalSignature: true, keyEncipherment: true, keyCertSign: false, critical: true });
    expect(ext(f, 'extKeyUsage')).toMatchObject({ serverAuth: true });
    expect(ext(f, 'extKeyUsage')!.clientAuth).toBeUndefined();
    const alt = (ext(f, 'subjectAltName')!.altNames as { type: number; value?: string; ip?: string }[]).map((a) =>
      a.type === 7 ? `IP:${a.ip}` : `DNS:${a.value}`,
    );
    expect(alt).toEqual(['DNS:example.test', 'IP:127.0.0.1', 'IP:::1', 'DNS:localhost']);
    // forge leaves AKI unparsed: SEQUENCE { [0] keyIdentifier (20 bytes) }.
    expect(forge.util.bytesToHex(ext(f, 'authorityKeyIdentifier')!.value as string)).toBe(
      `30168014${caF.generateSubjectKeyIdentifier().toHex()}`,
    );
    const days = (f.validity.notAfter.getTime() - f.validity.notBefore.getTime()) / 86_400_000;
    expect(days).toBeLessThanOrEqual(398);
    expect(f.validity.notBefore.getTime()).toBeLessThan(Date.now());
  });

  it.skipIf(!hasOpenssl)('openssl verify accepts the chain for TLS server use', () => {
    const leafFile = path.join(dir, 'leaf.pem');
    fs.writeFileSync(leafFile, leafPem);
    const out = execFileSync('openssl', ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', ca.certPath, leafFile], {
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(`${leafFile}: OK`);
  });

  it('serial numbers are positive and differ per certificate; a 64-char CN cap keeps long names valid', () => {
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
    const a = forge.pki.certificateFromPem(ca.issue([long]).certPem);
    const b = forge.pki.certificateFromPem(ca.issue([long]).certPem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(parseInt(a.serialNumber.slice(0, 2), 16)).toBeLessThan(0x80);
    expect((a.subject.getField('CN') as { value: string }).value).toHaveLength(64);
    expect(new crypto.X509Certificate(ca.issue([long]).certPem).checkHost(long)).toBe(long);
  });

  it('issuing is fast enough not to stall the proxy (native signing; forge took ~40 ms per host)', () => {
    const t = performance.now();
    for (let i = 0; i < 20; i++) ca.issue([`h${i}.example`]);
    // Generous bound for a busy CI machine; forge needed ~800 ms for the same 20.
    expect(performance.now() - t).toBeLessThan(400);
  });

  it('keeps working with a CA created by earlier versions (node-forge), and issues certificates it verifies', () => {
    const old = tempDataDir();
    fs.mkdirSync(path.join(old, 'ca'), { recursive: true, mode: 0o700 });
    const keys = forge.pki.rsa.generateKeyPair(2048);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date(Date.now() - 86_400_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000 * 365);
    const attrs = [
      { name: 'commonName', value: 'Netlens CA (old)' },
      { name: 'organizationName', value: 'Netlens' },
    ];
    cert.setSubject(attrs);
    cert.setIssuer(attrs);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    fs.writeFileSync(path.join(old, 'ca', 'netlens-ca.pem'), forge.pki.certificateToPem(cert));
    fs.writeFileSync(path.join(old, 'ca', 'netlens-ca.key'), forge.pki.privateKeyToPem(keys.privateKey), { mode: 0o600 });
    const oldCa = loadOrCreateCA(old);
    const leaf = new crypto.X509Certificate(oldCa.issue(['legacy.test']).certPem);
    expect(leaf.verify(new crypto.X509Certificate(oldCa.certPem).publicKey)).toBe(true);
    expect(leaf.issuer).toContain('CN=Netlens CA (old)');
  });

  it('refuses a CA key that does not belong to the CA certificate', () => {
    const d = tempDataDir();
    const c = loadOrCreateCA(d);
    const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    fs.writeFileSync(c.keyPath, other);
    expect(() => loadOrCreateCA(d)).toThrow(/damaged.*does not match/);
  });
});
