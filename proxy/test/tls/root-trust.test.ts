/**
 * rootsPlus: contexts trusting Node's root store plus extra CAs, without copying the roots' PEM
 * (proxy/src/tls/root-trust.ts). The roots must stay trusted and the process-wide store unchanged;
 * Node run with --use-openssl-ca and SSL_CERT_FILE (its root store read from that file) stands in for a
 * public root here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA } from '../../src/tls/ca.js';

const dirs: string[] = [];
const servers: tls.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function originSignedByNewCA(): Promise<{ port: number; certPath: string; certPem: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-roots-'));
  dirs.push(dir);
  const ca = loadOrCreateCA(dir);
  const { certPem, keyPem } = ca.hostCredentials('localhost');
  const server = tls.createServer({ cert: certPem, key: keyPem }, (s) => s.end('ok'));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, certPath: ca.certPath, certPem: ca.certPem };
}

describe('rootsPlus', () => {
  it('trusts the extra CA and the roots, leaves the shared root store alone, and reuses the context', async () => {
    const extra = await originSignedByNewCA();
    const root = await originSignedByNewCA();
    // In a child whose root store is `root`'s CA (--use-openssl-ca, SSL_CERT_FILE): which connections verify.
    const script = `
      import tls from 'node:tls';
      import { rootsPlus } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/tls/root-trust.ts'))};
      const extra = ${JSON.stringify(extra.certPem)};
      const tryIt = (port, secureContext) => new Promise((resolve) => {
        const s = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false, ...(secureContext ? { secureContext } : {}) },
          () => { resolve(s.authorized ? 'ok' : String(s.authorizationError)); s.destroy(); });
        s.on('error', (e) => resolve(e.code));
      });
      const out = {
        extraWithIt: await tryIt(${extra.port}, rootsPlus([extra])),
        rootWithIt: await tryIt(${root.port}, rootsPlus([extra])),
        extraByDefault: await tryIt(${extra.port}),
        extraWithRootsOnly: await tryIt(${extra.port}, rootsPlus([])),
        extraWithNewContext: await tryIt(${extra.port}, tls.createSecureContext({})),
        same: rootsPlus([extra]) === rootsPlus([extra]),
      };
      process.stdout.write(JSON.stringify(out));`;
    // Asynchronously: the origins answer from this process.
    const { stdout: out } = await promisify(execFile)(
      process.execPath,
      ['--use-openssl-ca', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
        env: { ...process.env, SSL_CERT_FILE: root.certPath },
      },
    );
    expect(JSON.parse(out)).toEqual({
      extraWithIt: 'ok',
      rootWithIt: 'ok',
      extraByDefault: 'SELF_SIGNED_CERT_IN_CHAIN',
      extraWithRootsOnly: 'SELF_SIGNED_CERT_IN_CHAIN',
      extraWithNewContext: 'SELF_SIGNED_CERT_IN_CHAIN',
      same: true,
    });
  });
});
