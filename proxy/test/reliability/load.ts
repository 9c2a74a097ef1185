/**
 * Mixed load for the reliability suite and the soak: origins that remember what
 * they served (by request id), and clients that go through the proxy as plain
 * HTTP/1.1 (absolute-form), intercepted HTTPS over HTTP/1.1 (undici, CONNECT) and
 * intercepted HTTP/2 (a CONNECT tunnel, TLS with ALPN h2, node:http2).
 * Every request carries `x-soak-id`; every body is derived from the id, so the
 * HAR can be checked entry by entry without keeping bodies in memory.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { ProxyAgent, request as undiciRequest } from 'undici';
import type { CertificateAuthority } from '../../src/tls/ca.js';

export type Kind = 'plain-h1' | 'https-h1' | 'https-h2';
export const KINDS: Kind[] = ['plain-h1', 'https-h1', 'https-h2'];

export const sha1 = (s: string | Buffer) => crypto.createHash('sha1').update(s).digest('hex');

/** Response body for an id: mostly small, some KiBs, a few 32 KiB. */
export function responseBody(id: number): string {
  const r = id % 100;
  const size = r < 70 ? r * 3 : r < 95 ? 1024 + r * 30 : 32 * 1024;
  return `response ${id};${'r'.repeat(size)}`;
}

/** Request body for the POSTs (every third request). */
export function requestBody(id: number): string | undefined {
  return id % 3 === 0 ? `request ${id};${'q'.repeat((id * 7) % 2048)}` : undefined;
}

export interface Served {
  /** id → sha1 of the response body sent and of the request body received. */
  byId: Map<number, { response: string; request: string }>;
}

export interface Origins {
  served: Served;
  plain: number;
  httpsH1: number;
  httpsH2: number;
  close(): Promise<void>;
}

export async function startOrigins(ca: CertificateAuthority): Promise<Origins> {
  const served: Served = { byId: new Map() };
  const handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = Number(req.headers['x-soak-id']);
      const body = responseBody(id);
      served.byId.set(id, { response: sha1(body), request: sha1(Buffer.concat(chunks)) });
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
  const { certPem, keyPem } = ca.issue(['127.0.0.1', 'localhost']);
  const plain = http.createServer(handler);
  const h1 = https.createServer({ cert: certPem, key: keyPem }, handler);
  const h2 = http2.createSecureServer({ cert: certPem, key: keyPem, allowHTTP1: false }, handler);
  const listen = (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));
  const [p, a, b] = [await listen(plain), await listen(h1), await listen(h2)];
  const close = (s: net.Server & { closeAllConnections?: () => void }) =>
    new Promise<void>((r) => {
      s.closeAllConnections?.();
      s.close(() => r());
    });
  return { served, plain: p, httpsH1: a, httpsH2: b, close: async () => void (await Promise.all([close(plain), close(h1), close(h2)])) };
}

export interface Answer {
  id: number;
  kind: Kind;
  /** performance.now() + performance.timeOrigin when the whole response had arrived. */
  doneAt: number;
  ok: boolean;
  error?: string;
}

/** One client of each kind, through the proxy at `proxyPort`. */
export class LoadClient {
  private readonly plainAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly undiciAgent: ProxyAgent;
  private readonly h2Sessions: Promise<http2.ClientHttp2Session>[] = [];
  private next = 0;

  constructor(
    private readonly proxyPort: number,
    private readonly origins: Origins,
    private readonly caPem: string,
    h2Sessions = 4,
  ) {
    this.undiciAgent = new ProxyAgent({ uri: `http://127.0.0.1:${proxyPort}`, requestTls: { ca: caPem }, connections: 32 });
    for (let i = 0; i < h2Sessions; i++) this.h2Sessions.push(this.openH2());
  }

  private openH2(): Promise<http2.ClientHttp2Session> {
    const authority = `127.0.0.1:${this.origins.httpsH2}`;
    return new Promise((resolve, reject) => {
      const connect = http.request({
        host: '127.0.0.1',
        port: this.proxyPort,
        method: 'CONNECT',
        path: authority,
        headers: { host: authority },
      });
      connect.once('error', reject);
      connect.once('connect', (res, socket) => {
        if (res.statusCode !== 200) return reject(new Error(`CONNECT ${res.statusCode}`));
        const secure = tls.connect({ socket, servername: 'localhost', ALPNProtocols: ['h2'], ca: this.caPem });
        const session = http2.connect(`https://${authority}`, { createConnection: () => secure });
        session.once('error', reject);
        session.once('connect', () => resolve(session));
      });
      connect.end();
    });
  }

  async send(id: number, kind: Kind): Promise<Answer> {
    const body = requestBody(id);
    const method = body === undefined ? 'GET' : 'POST';
    const done = (ok: boolean, error?: string): Answer => ({ id, kind, doneAt: performance.timeOrigin + performance.now(), ok, error });
    try {
      let text: string;
      if (kind === 'plain-h1') text = await this.plain(id, method, body);
      else if (kind === 'https-h1') {
        const url = `https://127.0.0.1:${this.origins.httpsH1}/r/${id}`;
        const r = await undiciRequest(url, { method, body, headers: { 'x-soak-id': String(id) }, dispatcher: this.undiciAgent });
        text = await r.body.text();
      } else text = await this.h2(id, method, body);
      const ok = text === responseBody(id);
      return done(ok, ok ? undefined : `body mismatch (${text.length} chars)`);
    } catch (err) {
      return done(false, (err as Error).message);
    }
  }

  private plain(id: number, method: string, body?: string): Promise<string> {
    const url = `http://127.0.0.1:${this.origins.plain}/r/${id}`;
    return new Promise((resolve, reject) => {
      const headers = { host: `127.0.0.1:${this.origins.plain}`, 'x-soak-id': String(id) };
      const req = http.request({ host: '127.0.0.1', port: this.proxyPort, path: url, method, agent: this.plainAgent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  private async h2(id: number, method: string, body?: string): Promise<string> {
    const session = await this.h2Sessions[this.next++ % this.h2Sessions.length]!;
    return new Promise((resolve, reject) => {
      const stream = session.request({ ':method': method, ':path': `/r/${id}`, 'x-soak-id': String(id) });
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (c) => (text += c));
      stream.on('end', () => resolve(text));
      stream.on('error', reject);
      stream.end(body);
    });
  }

  async close(): Promise<void> {
    this.plainAgent.destroy();
    await this.undiciAgent.close().catch(() => undefined);
    for (const s of this.h2Sessions) (await s.catch(() => undefined))?.destroy();
  }
}
