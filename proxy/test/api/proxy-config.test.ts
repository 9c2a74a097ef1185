/**
 * The settings the UI edits (issue 15 item 9), checked by the core: upstream CA files, insecure,
 * body capture limit, port. Bad inputs next to good ones; a taken port leaves the proxy as it was.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CoreService } from '../../src/api/core-service.js';
import { MAX_BODY_CAPTURE_LIMIT, proxyConfigPatch, readCAFile } from '../../src/api/proxy-config.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { fakeProxy } from './helpers.js';
import { fakeBackends } from './fake-backends.js';

const dirs: string[] = [];
const services: CoreService[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-pcfg-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

let certPem = '';
let keyDir = '';
beforeAll(async () => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-pcfg-ca-'));
  certPem = (await loadOrCreateCA(keyDir)).certPem;
});

function files() {
  const d = tmp();
  const write = (name: string, text: string | Buffer) => {
    const f = path.join(d, name);
    fs.writeFileSync(f, text);
    return f;
  };
  const keyFile = fs.readdirSync(keyDir).find((f) => /key/i.test(f));
  return {
    dir: d,
    good: write('ca.pem', certPem),
    bundle: write('bundle.pem', `# a comment\n${certPem}\n${certPem}`),
    der: write('ca.der', Buffer.from([0x30, 0x82, 0x01, 0x0a, 0x02, 0x82])),
    text: write('notes.txt', 'not a certificate\n'),
    key: write(
      'key.pem',
      keyFile ? fs.readFileSync(path.join(keyDir, keyFile)) : '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n',
    ),
    broken: write('broken.pem', '-----BEGIN CERTIFICATE-----\nnot base64 at all!!\n-----END CERTIFICATE-----\n'),
    big: write('big.pem', Buffer.alloc(1024 * 1024 + 1, 0x41)),
    missing: path.join(d, 'nope.pem'),
  };
}

function service(extra: Partial<ConstructorParameters<typeof CoreService>[0]> = {}) {
  const fake = fakeProxy();
  const s = new CoreService({ ...fakeBackends(), dataDir: tmp(), startProxy: fake.start, batchMs: 10, ...extra });
  services.push(s);
  return { s, fake };
}

describe('upstream CA files', () => {
  it('accepts a PEM certificate or bundle and refuses each bad file with NL_UPSTREAM_CA_FILE naming it', () => {
    const f = files();
    expect(readCAFile(f.good)).toContain('BEGIN CERTIFICATE');
    expect(readCAFile(f.bundle).match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    const cases: Array<[string, RegExp]> = [
      [f.missing, /does not exist/],
      [f.dir, /is not a file/],
      [f.der, /is not a PEM certificate/],
      [f.text, /is not a PEM certificate/],
      [f.key, /private key, not a certificate/],
      [f.broken, /not a valid certificate/],
      [f.big, /more than a CA file/],
      ['relative/ca.pem', /not an absolute path/],
    ];
    for (const [file, why] of cases) {
      let err: unknown;
      try {
        readCAFile(file);
      } catch (e) {
        err = e;
      }
      expect(err, file).toMatchObject({ code: 'NL_UPSTREAM_CA_FILE' });
      expect((err as Error).message).toMatch(why);
      expect((err as Error).message).toContain(file);
    }
  });

  it('configureProxy keeps the paths, reads them at each start and passes the PEM to the proxy', async () => {
    const f = files();
    const { s, fake } = service({ proxyExtras: { upstreamCA: ['EXTRA-PEM'] } });
    await expect(s.configureProxy({ upstreamCAFiles: [f.missing] })).rejects.toMatchObject({ code: 'NL_UPSTREAM_CA_FILE' });
    await expect(s.configureProxy({ upstreamCAFiles: 'x' as never })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(s.configureProxy({ upstreamCAFiles: [1] as never })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(s.configureProxy({ upstreamCAFiles: Array(33).fill(f.good) })).rejects.toThrow(/at most 32/);
    const saved = await s.configureProxy({ upstreamCAFiles: [` ${f.good} `, '', f.good] });
    expect(saved.config.upstreamCAFiles).toEqual([f.good]);
    await s.startProxy();
    expect(fake.starts.at(-1)?.upstreamCA).toEqual(['EXTRA-PEM', certPem.trim()]);
    // A file gone since it was configured stops the next start with the reason, not a crash.
    fs.rmSync(f.good);
    await expect(s.configureProxy({ nagle: true })).rejects.toMatchObject({ code: 'NL_UPSTREAM_CA_FILE' });
    expect((await s.getStatus()).proxy).toMatchObject({ running: false, error: { code: 'NL_UPSTREAM_CA_FILE' } });
    await s.configureProxy({ upstreamCAFiles: [] });
    await expect(s.startProxy()).resolves.toMatchObject({ running: true });
  });
});

describe('body capture limit and insecure', () => {
  it('takes whole bytes 0–64 MiB and true/false, and hands them to the proxy', async () => {
    for (const v of [-1, 1.5, MAX_BODY_CAPTURE_LIMIT + 1, '1024', null, Number.NaN]) {
      expect(() => proxyConfigPatch({ bodyCaptureLimit: v }, 'configureProxy'), String(v)).toThrow(
        /"bodyCaptureLimit" must be a whole number of bytes from 0/,
      );
    }
    expect(() => proxyConfigPatch({ insecureUpstream: 'yes' }, 'configureProxy')).toThrow(/"insecureUpstream" must be true or false/);
    expect(proxyConfigPatch({ bodyCaptureLimit: 0, insecureUpstream: true }, 'c')).toEqual({ bodyCaptureLimit: 0, insecureUpstream: true });
    expect(proxyConfigPatch({ bodyCaptureLimit: MAX_BODY_CAPTURE_LIMIT }, 'c')).toEqual({ bodyCaptureLimit: MAX_BODY_CAPTURE_LIMIT });

    const { s, fake } = service();
    expect((await s.getStatus()).proxy.config).toMatchObject({
      bodyCaptureLimit: 4 * 1024 * 1024,
      insecureUpstream: false,
      upstreamCAFiles: [],
    });
    await s.startProxy();
    await expect(s.configureProxy({ bodyCaptureLimit: -5 })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    expect(fake.starts).toHaveLength(1);
    const on = await s.configureProxy({ bodyCaptureLimit: 1024, insecureUpstream: true });
    expect(on).toMatchObject({ running: true, config: { bodyCaptureLimit: 1024, insecureUpstream: true } });
    expect(fake.starts.at(-1)).toMatchObject({ bodyCaptureLimit: 1024, insecureUpstream: true });
  });
});

describe('proxy port', () => {
  it('refuses a taken port with NL_PORT_IN_USE and keeps the running proxy; a free one restarts it there', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const { s, fake } = service();
      const first = await s.startProxy({ port: 0 });
      await expect(s.configureProxy({ port: taken })).rejects.toMatchObject({
        code: 'NL_PORT_IN_USE',
        message: expect.stringContaining(String(taken)),
      });
      const after = await s.getStatus();
      expect(after.proxy).toMatchObject({ running: true, address: first.address, config: { port: 0 } });
      expect(fake.starts).toHaveLength(1);
      // Saving while stopped is checked the same way.
      await s.stopProxy();
      await expect(s.configureProxy({ port: taken })).rejects.toMatchObject({ code: 'NL_PORT_IN_USE' });
      await expect(s.configureProxy({ port: 0 })).resolves.toMatchObject({ config: { port: 0 } });
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});

describe('CA certificate download', () => {
  it('returns the certificate PEM, never the key', async () => {
    const { s } = service();
    const { fileName, text } = await s.getCaCertificate();
    expect(fileName).toBe('netlens-ca.pem');
    expect(text).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(text).not.toMatch(/PRIVATE KEY/);
  });
});
