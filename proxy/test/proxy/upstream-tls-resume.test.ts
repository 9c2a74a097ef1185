/** Upstream TLS sessions resumed by later connections to the same origin (pool.ts connectTls). */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from '../../src/tls/ca.js';
import { loadOrCreateCA, tempDataDir, testProxy, type TestProxy, interceptedConnection as sharedIntercepted, until } from './harness.js';

let ca: CertificateAuthority;
let origin: https.Server;
let originPort: number;
/** Per TLS connection the origin accepted, in order: whether it resumed an earlier session. */
const resumed: boolean[] = [];
const sockets = new Set<net.Socket>();
let tp: TestProxy;

beforeAll(async () => {
  const dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  const { certPem, keyPem } = ca.issue(['localhost', '127.0.0.1']);
  origin = https.createServer({ cert: certPem, key: keyPem }, (_req, res) => res.end('ok'));
  origin.on('secureConnection', (s: tls.TLSSocket) => resumed.push(s.isSessionReused()));
  origin.on('connection', (s: net.Socket) => sockets.add(s));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originPort = (origin.address() as net.AddressInfo).port;
  tp = await testProxy({ dataDir, http2: false, upstreamCA: [ca.certPem] });
});
afterAll(async () => {
  await tp.stop();
  for (const s of sockets) s.destroy();
  await new Promise((r) => origin.close(r));
});

const interceptedConnection = () => sharedIntercepted(tp.proxy.address.port, originPort, ca.certPem);

function get(socket: tls.TLSSocket, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // A keep-alive agent over the secured socket: without one node:http asks for Connection: close.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agent.createConnection = () => socket;
    const req = http.request({ host: 'localhost', port: originPort, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('upstream TLS session resumption', () => {
  it('resumes the first connection session on the next connection to the same origin, and requests go on', async () => {
    const first = await interceptedConnection();
    expect(await get(first, '/a')).toBe(200);
    // The first upstream connection was a full handshake; its session tickets came before its response.
    expect(resumed).toEqual([false]);
    const second = await interceptedConnection();
    try {
      await until(() => resumed.length === 2);
      expect(resumed).toEqual([false, true]);
      expect(await get(second, '/b')).toBe(200);
      const xs = await tp.waitFor(2);
      expect(xs.map((x) => x.response?.status)).toEqual([200, 200]);
    } finally {
      first.destroy();
      second.destroy();
    }
  });
});
