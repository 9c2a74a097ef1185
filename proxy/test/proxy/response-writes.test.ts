/**
 * Writes on the client leg per intercepted HTTP/1.1 response (handle-request.ts endSent): a small
 * response with a Content-Length leaves in one write, head and body together, and node:http's empty
 * end-of-response write (a 0-byte write syscall per exchange under TLS) is gone.
 */
import http from 'node:http';
import net from 'node:net';
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
} from './harness.js';

let ca: CertificateAuthority;
let origin: Origin;
let tp: TestProxy;

type WriteGeneric = (this: net.Socket, writev: boolean, data: unknown, encoding: BufferEncoding, cb: unknown) => unknown;
const proto = net.Socket.prototype as unknown as { _writeGeneric: WriteGeneric };
const original = proto._writeGeneric;
/**
 * Each write the proxy made on an intercepted client connection (its TLS server sockets), in order, as the
 * bytes of its chunks: a batch (writev, as when the socket was corked) is one write of several chunks.
 */
let clientLegWrites: number[][] = [];

const bytesOf = (chunk: unknown, encoding: BufferEncoding) =>
  typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : (chunk as Uint8Array).byteLength;

beforeAll(async () => {
  const dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  origin = await httpsOrigin(ca, { h2: false }, (req, response) => {
    const res = response as http.ServerResponse;
    if (req.url === '/chunked') {
      res.write('part one, ');
      setTimeout(() => res.end('part two'), 5);
    } else res.end(`body of ${req.url}`);
  });
  tp = await testProxy({ dataDir, http2: false, upstreamCA: [ca.certPem] });
  const proxyPort = tp.proxy.address.port;
  proto._writeGeneric = function (writev, data, encoding, cb) {
    const s = this as tls.TLSSocket & { _tlsOptions?: { isServer?: boolean }; _parent?: net.Socket };
    if (s._tlsOptions?.isServer && (s._parent ?? s).localPort === proxyPort) {
      const chunks = writev ? (data as { chunk: unknown; encoding: BufferEncoding }[]) : [{ chunk: data, encoding }];
      clientLegWrites.push(chunks.map((c) => bytesOf(c.chunk, c.encoding)));
    }
    return original.call(this, writev, data, encoding, cb);
  };
});
afterAll(async () => {
  proto._writeGeneric = original;
  await tp.stop();
  await origin.close();
});

const interceptedConnection = () => sharedIntercepted(tp.proxy.address.port, origin.port, ca.certPem);

/** A keep-alive agent whose one connection is `socket` (node:http over the secured tunnel). */
function agentOn(socket: tls.TLSSocket): http.Agent {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agent.createConnection = () => socket;
  return agent;
}

/** GETs one after another on the agent's keep-alive connection; resolves with the bodies. */
async function gets(agent: http.Agent, paths: string[]): Promise<string[]> {
  const bodies: string[] = [];
  for (const path of paths) {
    bodies.push(
      await new Promise<string>((resolve, reject) => {
        const req = http.get({ host: 'localhost', port: origin.port, path, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body));
        });
        req.once('error', reject);
      }),
    );
  }
  return bodies;
}

describe('client-leg writes per intercepted HTTP/1.1 response', () => {
  it('sends a response with a Content-Length in one write and no empty write; a chunked one still ends', async () => {
    const socket = await interceptedConnection();
    const agent = agentOn(socket);
    try {
      clientLegWrites = [];
      const paths = Array.from({ length: 8 }, (_, i) => `/r${i}`);
      expect(await gets(agent, paths)).toEqual(paths.map((p) => `body of ${p}`));
      const xs = await tp.waitFor(8);
      expect(xs.every((x) => x.error === undefined && x.response?.status === 200)).toBe(true);
      // One write per response, each the whole response (head and body): never a 0-byte one.
      // One write per response (head and body, which TLS sends as one record), without the empty chunk
      // node:http used to end each response with (a 0-byte write syscall per exchange).
      expect(clientLegWrites.length).toBe(8);
      expect(clientLegWrites.flat().filter((n) => n === 0)).toEqual([]);
      // A chunked response still ends with its last chunk (its end writes it), and the connection goes on.
      expect(await gets(agent, ['/chunked', '/after'])).toEqual(['part one, part two', 'body of /after']);
      const after = await tp.waitFor(10);
      expect(after.slice(8).map((x) => [x.request.url.replace(/^.*\//, '/'), x.response?.status, x.error])).toEqual([
        ['/chunked', 200, undefined],
        ['/after', 200, undefined],
      ]);
    } finally {
      agent.destroy();
      socket.destroy();
    }
  });
});
