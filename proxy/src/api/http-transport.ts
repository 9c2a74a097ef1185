/**
 * The HTTP + WebSocket transport of the API contract (`netlens serve`), and the
 * host of the built renderer (dist/renderer).
 *
 *   POST /api/<command>   JSON argument → `{ ok: true, result }` | `{ ok: false, error: { code, message } }`
 *   GET  /api/events      WebSocket: one JSON `NetlensEvent` per message
 *   GET  /?token=…        the renderer (sets an HttpOnly cookie so its assets load)
 *
 * Security model: the server listens on 127.0.0.1 only, and every request must
 * carry the per-launch random token (Authorization: Bearer, ?token=, or the
 * cookie set by the page). Any web page the user visits could otherwise talk to
 * localhost, so on top of the token:
 *  - a request with an Origin other than this server's own is refused (403),
 *    including WebSocket upgrades, which browsers do not guard with CORS;
 *  - the Host header must name this server (defeats DNS rebinding);
 *  - commands need `Content-Type: application/json`, which a cross-site form cannot send.
 */
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { WebSocket } from 'ws';
import { lazyRequire } from '../lazy-require.js';

const ws = lazyRequire<typeof import('ws')>('ws');
import { COMMAND_NAMES, type CommandName, type NetlensApi } from './contract.js';
import { ErrorCodes } from '../errors.js';

export interface HttpTransportOptions {
  service: NetlensApi;
  /** 0 = any free port (default). */
  port?: number;
  /** Directory of the built renderer (index.html + assets/). */
  staticDir?: string;
  /** Fixed token (tests); default: 32 random bytes per launch. */
  token?: string;
}

export interface HttpTransport {
  port: number;
  token: string;
  /** The URL to open: carries the token. */
  url: string;
  close(): Promise<void>;
}

const COOKIE = 'netlens_token';
/** A HAR import is one request: allow big files, but bounded. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** A slow WebSocket client is dropped rather than buffering events without bound. */
const MAX_WS_BUFFERED = 64 * 1024 * 1024;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

const commandSet = new Set<string>(COMMAND_NAMES);

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function cookieToken(req: http.IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { ok: false, error: { code, message } });
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error(`request body over ${MAX_BODY_BYTES / 1024 / 1024} MiB`), { code: ErrorCodes.API_BAD_REQUEST }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startHttpTransport(options: HttpTransportOptions): Promise<HttpTransport> {
  const token = options.token ?? crypto.randomBytes(32).toString('base64url');
  const { service } = options;
  const staticDir = options.staticDir ? path.resolve(options.staticDir) : undefined;
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  /** Returns an [status, code, message] refusal, or undefined when the request may proceed. */
  function refusal(req: http.IncomingMessage, url: URL): [number, string, string] | undefined {
    if (!allowedHosts().has(req.headers.host ?? '')) {
      return [403, ErrorCodes.API_FORBIDDEN, 'Unexpected Host header: open the URL that "netlens serve" printed.'];
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) {
      return [403, ErrorCodes.API_FORBIDDEN, `Cross-origin request from ${origin} refused.`];
    }
    if (req.headers['sec-fetch-site'] === 'cross-site') {
      return [403, ErrorCodes.API_FORBIDDEN, 'Cross-site request refused.'];
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const given = bearer ?? url.searchParams.get('token') ?? cookieToken(req);
    if (!sameToken(given ?? undefined, token)) {
      return [
        401,
        ErrorCodes.API_UNAUTHORIZED,
        given ? 'Wrong token: open the URL that "netlens serve" printed for this launch.' : 'Token required: open the URL that "netlens serve" printed (it ends in ?token=…).',
      ];
    }
    return undefined;
  }

  function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const isPage = url.pathname === '/' || url.pathname === '/index.html';
    if (!staticDir || !fs.existsSync(path.join(staticDir, 'index.html'))) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The Netlens renderer is not built. Run "npm run build", then reload this page.\n');
      return;
    }
    const rel = isPage ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = path.resolve(staticDir, rel);
    if (!file.startsWith(staticDir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found\n');
      return;
    }
    const headers: http.OutgoingHttpHeaders = {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      // The page URL carries the token: never send it on as a Referer.
      'referrer-policy': 'no-referrer',
      'cache-control': isPage ? 'no-store' : 'private, max-age=3600',
    };
    if (isPage) {
      headers['set-cookie'] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      headers['content-security-policy'] = [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; ');
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  }

  async function handleCommand(req: http.IncomingMessage, res: http.ServerResponse, name: string): Promise<void> {
    if (req.method !== 'POST') return sendError(res, 405, ErrorCodes.API_BAD_REQUEST, 'Commands are POST requests.');
    if (!commandSet.has(name)) return sendError(res, 404, ErrorCodes.API_BAD_REQUEST, `Unknown command "${name}".`);
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return sendError(res, 415, ErrorCodes.API_BAD_REQUEST, 'Commands need Content-Type: application/json.');
    }
    let args: unknown;
    try {
      const text = await readBody(req);
      args = text.trim() === '' ? undefined : JSON.parse(text);
    } catch (err) {
      return sendError(res, 400, ErrorCodes.API_BAD_REQUEST, `Malformed command body: ${(err as Error).message}`);
    }
    try {
      const fn = service[name as CommandName] as (a: unknown) => Promise<unknown>;
      const result = await fn.call(service, args);
      sendJson(res, 200, { ok: true, result: result ?? null });
    } catch (err) {
      const e = err as Error & { code?: string };
      const code = typeof e.code === 'string' && e.code.startsWith('NL_') ? e.code : ErrorCodes.INTERNAL;
      const status = code === ErrorCodes.API_BAD_REQUEST ? 400 : code === ErrorCodes.NOT_FOUND ? 404 : code === ErrorCodes.INTERNAL ? 500 : 409;
      if (code === ErrorCodes.INTERNAL) process.emitWarning(`netlens serve: ${name} failed: ${e.stack ?? e}`);
      sendError(res, status, code, e.message || String(err));
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refused = refusal(req, url);
    if (refused) {
      const [status, code, message] = refused;
      if (url.pathname.startsWith('/api/')) return sendError(res, status, code, message);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${message}\n`);
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      handleCommand(req, res, url.pathname.slice('/api/'.length)).catch((err) => sendError(res, 500, ErrorCodes.INTERNAL, String(err)));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, ErrorCodes.API_BAD_REQUEST, 'Method not allowed.');
    serveStatic(req, res, url);
  });

  const wss = new (ws().WebSocketServer)({ noServer: true, maxPayload: 64 * 1024 });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refused = url.pathname === '/api/events' ? refusal(req, url) : ([404, ErrorCodes.API_BAD_REQUEST, 'Not found'] as [number, string, string]);
    if (refused) {
      socket.end(`HTTP/1.1 ${refused[0]} ${http.STATUS_CODES[refused[0]]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refused[2]}\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      const unsubscribe = service.subscribe((event) => {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > MAX_WS_BUFFERED) {
          ws.close(1013, 'client too slow; reload to resync');
          return;
        }
        ws.send(JSON.stringify(event));
      });
      ws.on('close', () => {
        unsubscribe();
        sockets.delete(ws);
      });
      ws.on('error', () => ws.terminate());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
