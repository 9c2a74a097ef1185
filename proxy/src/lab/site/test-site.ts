/**
 * The built-in test site: an HTTPS origin on 127.0.0.1 that speaks HTTP/2 and
 * HTTP/1.1 (ALPN), with a certificate from the Netlens CA, serving a page of N
 * images plus resources that leave in many small writes.
 *
 * On loopback the round trip is ~0, so protocol effects vanish; the site can add
 * latency per new connection (before the TLS handshake, like a longer round
 * trip) and per response (like server think time). HTTP/1.1's six connections
 * then pay the per-response latency in sequence while HTTP/2 streams overlap.
 *
 * The site itself must not cause Nagle stalls the proxy would be blamed for:
 * every accepted socket gets setNoDelay(true) explicitly.
 */
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { loadOrCreateCA, type CertificateAuthority } from '../../tls/ca.js';
import { defaultDataDir } from '../../options.js';
import { expectedRequests, page, pngImage, script, stylesheet } from './assets.js';

export interface TestSiteOptions {
  /** Images on the page. Default 1000. */
  images?: number;
  /** Delay before every response, ms. Default 0. */
  latencyMs?: number;
  /** Delay before a new connection's TLS handshake (or first byte, plain), ms. Default: latencyMs. */
  connectionLatencyMs?: number;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** HTTPS (h2 + http/1.1 by ALPN). Default true; false serves plain HTTP/1.1. */
  tls?: boolean;
  /** Offer h2 by ALPN (TLS only). Default true. */
  http2?: boolean;
  /** Size of style.css and app.js, bytes. Default 48 KiB. */
  assetBytes?: number;
  /** Bytes per write for style.css, app.js and chunked.js. Default 1024: "many small writes". */
  writeBytes?: number;
  /**
   * Send each image's response head and body in two writes (head flushed, body in
   * the next turn), as many servers do (headers, then sendfile). Default true:
   * a proxy that relays them with Nagle on holds the body until the head is ACKed.
   */
  splitImageWrites?: boolean;
  /** CA that issues the certificate; default loadOrCreateCA(dataDir). */
  ca?: CertificateAuthority;
  dataDir?: string;
}

export interface TestSiteStats {
  connections: number;
  requests: number;
  /** Requests per protocol, e.g. `{ "2.0": 54 }` or `{ "1.1": 54 }`. */
  httpVersions: Record<string, number>;
  /** Sockets on which the site set noDelay (must equal connections). */
  noDelaySockets: number;
}

export interface TestSite {
  /** `https://127.0.0.1:PORT/` (the page). */
  url: string;
  port: number;
  images: number;
  latencyMs: number;
  connectionLatencyMs: number;
  /** Requests one full page load makes. */
  expectedRequests: number;
  stats: TestSiteStats;
  close(): Promise<void>;
}

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

const delay = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

/** Writes `body` in `size`-byte pieces, each in its own event-loop turn so each leaves as its own segment. */
async function writeInPieces(res: Res, body: Buffer, size: number): Promise<void> {
  for (let off = 0; off < body.length; off += size) {
    if (res.destroyed) return;
    const ok = (res as http.ServerResponse).write(body.subarray(off, off + size));
    if (!ok) await new Promise<void>((r) => (res as http.ServerResponse).once('drain', () => r()));
    else await new Promise<void>((r) => setImmediate(r));
  }
}

export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const images = options.images ?? 1000;
  const latencyMs = options.latencyMs ?? 0;
  const connectionLatencyMs = options.connectionLatencyMs ?? latencyMs;
  const useTls = options.tls ?? true;
  const writeBytes = options.writeBytes ?? 1024;
  const assetBytes = options.assetBytes ?? 48 * 1024;
  const splitImageWrites = options.splitImageWrites ?? true;

  const html = page(images, `Netlens test site: ${images} images`);
  const css = stylesheet(assetBytes);
  const js = script(assetBytes, 'app');
  const chunkedJs = script(Math.round(assetBytes / 2), 'chunked');
  const pngs = Array.from({ length: images }, (_, i) => pngImage(i));
  const stats: TestSiteStats = { connections: 0, requests: 0, httpVersions: {}, noDelaySockets: 0 };

  const handler = (req: Req, res: Res) => {
    stats.requests++;
    stats.httpVersions[req.httpVersion] = (stats.httpVersions[req.httpVersion] ?? 0) + 1;
    void respond(req, res).catch(() => res.destroy());
  };

  const respond = async (req: Req, res: Res) => {
    await delay(latencyMs);
    if (res.destroyed) return;
    const url = new URL(req.url ?? '/', 'http://x');
    const head = (type: string, length?: number) => {
      const headers: Record<string, string | number> = { 'content-type': type, 'cache-control': 'no-store' };
      if (length !== undefined) headers['content-length'] = length;
      res.writeHead(200, headers);
    };
    const img = /^\/img\/(\d+)\.png$/.exec(url.pathname);
    if (url.pathname === '/' || url.pathname === '/index.html') {
      head('text/html; charset=utf-8', html.length);
      res.end(html);
    } else if (img && Number(img[1]) < images) {
      const png = pngs[Number(img[1])];
      head('image/png', png.length);
      if (splitImageWrites) {
        (res as http.ServerResponse).flushHeaders();
        await new Promise<void>((r) => setImmediate(r));
      }
      res.end(png);
    } else if (url.pathname === '/style.css' || url.pathname === '/app.js') {
      const body = url.pathname === '/style.css' ? css : js;
      head(url.pathname === '/style.css' ? 'text/css' : 'text/javascript', body.length);
      await writeInPieces(res, body, writeBytes);
      res.end();
    } else if (url.pathname === '/chunked.js') {
      // No content-length: HTTP/1.1 sends it chunked (h2: DATA frames until END_STREAM).
      head('text/javascript');
      await writeInPieces(res, chunkedJs, writeBytes);
      res.end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
    }
  };

  let server: net.Server;
  if (useTls) {
    const ca = options.ca ?? loadOrCreateCA(options.dataDir ?? defaultDataDir());
    const { certPem, keyPem } = ca.issue(['localhost', '127.0.0.1']);
    // HTTP/1.1 only needs a server of its own: http2.createSecureServer offers h2 by ALPN whatever ALPNProtocols says.
    if (options.http2 === false) {
      server = https.createServer({ cert: certPem, key: keyPem, ALPNProtocols: ['http/1.1'] }, handler);
      (server as https.Server).keepAliveTimeout = 30_000;
    } else {
      server = http2.createSecureServer({ cert: certPem, key: keyPem, allowHTTP1: true }, handler);
    }
  } else {
    server = http.createServer(handler);
    // Keep-alive connections must outlive the per-response latency between requests.
    (server as http.Server).keepAliveTimeout = 30_000;
  }

  // Accept TCP ourselves so we can set noDelay and add the connection latency
  // before handing the socket to the HTTP(S) server.
  const sockets = new Set<net.Socket>();
  const front = net.createServer({ pauseOnConnect: true }, (socket) => {
    stats.connections++;
    socket.setNoDelay(true);
    stats.noDelaySockets++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    setTimeout(() => {
      if (socket.destroyed) return;
      server.emit('connection', socket);
      socket.resume();
    }, connectionLatencyMs);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port ?? 0, host, () => {
      front.off('error', reject);
      resolve();
    });
  });
  const port = (front.address() as net.AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `${useTls ? 'https' : 'http'}://${host}:${port}/`,
    port,
    images,
    latencyMs,
    connectionLatencyMs,
    expectedRequests: expectedRequests(images),
    stats,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.close();
      })),
  };
}
