/** Upstream connections opened as intercepted clients connect (pool.preconnect). */
import http from 'node:http';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateAuthority } from '../../src/tls/ca.js';
import {
  httpsOrigin,
  loadOrCreateCA,
  tempDataDir,
  testProxy,
  type Origin,
  type TestProxy,
  interceptedConnection as sharedIntercepted,
  until,
} from './harness.js';

let ca: CertificateAuthority;
let origin: Origin;
let tp: TestProxy;

beforeAll(async () => {
  const dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  origin = await httpsOrigin(ca, { h2: false });
  tp = await testProxy({ dataDir, http2: false, upstreamCA: [ca.certPem] });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
});

const interceptedConnection = () => sharedIntercepted(tp.proxy.address.port, origin.port, ca.certPem);

function get(socket: tls.TLSSocket, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // node:http over the already-secured socket (https.request would start TLS again).
    const req = http.request({ host: 'localhost', port: origin.port, path, createConnection: () => socket }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('preconnect', () => {
  it('opens one upstream connection per HTTP/1.1 client connection before any request, and requests use them', async () => {
    const before = origin.connections;
    const beforeSecure = origin.secureConnections;
    const clients = await Promise.all([interceptedConnection(), interceptedConnection(), interceptedConnection()]);
    try {
      // No request sent yet: the proxy has already dialled the origin, once per client connection.
      await until(() => origin.connections - before === 3);
      // Wait for those handshakes to finish (and the pool to see them): a request that arrives while
      // its preconnect is still handshaking waits for it and reports that wait as its connect time,
      // which is what a loaded machine otherwise produces here.
      await until(() => origin.secureConnections - beforeSecure === 3);
      await new Promise((r) => setTimeout(r, 50));
      const statuses = await Promise.all(clients.map((c, i) => get(c, `/pre/${i}`)));
      expect(statuses).toEqual([200, 200, 200]);
      expect(origin.connections - before).toBe(3);
      const xs = await tp.waitFor(3);
      const pre = xs.filter((x) => x.request.url.includes('/pre/'));
      expect(new Set(pre.map((x) => x.upstreamConnectionId)).size).toBe(3);
      // Set up before the request: not the exchange's own connect time (as with a browser's preconnect).
      // A handshake still in flight when the request came counts only from the request's start (docs/timings.md).
      for (const x of pre) {
        const { start, tlsEnd } = x.timestamps;
        if (tlsEnd! <= start) expect(x.timings.connect).toBe(-1);
        else expect(x.timings.connect).toBeCloseTo(tlsEnd! - start, 2);
        expect(x.upstreamConnectionNew).toBe(false);
      }
    } finally {
      for (const c of clients) c.destroy();
    }
  });

  it('opens no more than the client connections need', async () => {
    await new Promise((r) => setTimeout(r, 100));
    const before = origin.connections;
    const c = await interceptedConnection();
    try {
      expect(await get(c, '/again')).toBe(200);
      // The three connections from the test before are idle in the pool: no new dial.
      await new Promise((r) => setTimeout(r, 100));
      expect(origin.connections - before).toBe(0);
    } finally {
      c.destroy();
    }
  });
});
