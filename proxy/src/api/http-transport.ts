/**
 * The HTTP + WebSocket transport of the API contract (`netlens serve`), and the
 * host of the built renderer (dist/renderer).
 *
 *   POST /api/<command>   JSON argument → `{ ok: true, result }` | `{ ok: false, error: { code, message } }`
 *   GET  /api/events      WebSocket: one JSON `NetlensEvent` per message (event-socket.ts)
 *   GET  /?token=…        the renderer; the page keeps the token in sessionStorage (static-files.ts)
 *
 * Who may call what: ui-guard.ts. Every handler here is total: a request that
 * cannot be parsed gets a 400, a handler that throws gets a 500 and a warning
 * on stderr, and neither ever takes the process (and the proxy it hosts) down.
 */
import http from 'node:http';
import crypto from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NetlensApi } from './contract.js';
import { invoke, isCommandName } from './invoke.js';
import { ErrorCodes } from '../errors.js';
import { parseTarget } from './request-target.js';
import { sendError, sendJson, sendRaw, sendText } from './http-replies.js';
import { createGuard, type Refusal } from './ui-guard.js';
import { serveStatic } from './static-files.js';
import { eventSockets } from './event-socket.js';

export interface HttpTransportOptions {
  service: NetlensApi;
  /** 0 = any free port (default). */
  port?: number;
  /** Directory of the built renderer (index.html + assets/). */
  staticDir?: string;
  /** Fixed token (tests); default: 32 random bytes per launch. */
  token?: string;
  /** Request line and headers must arrive within this; default HEADERS_TIMEOUT_MS (tests shorten it). */
  headersTimeoutMs?: number;
}

export interface HttpTransport {
  port: number;
  token: string;
  /** The URL to open: carries the token. */
  url: string;
  close(): Promise<void>;
}

/** A HAR import is one request: allow big files, but bounded. */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** Request line + headers must arrive within this (slowloris); Node's default is 60 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A whole request, body included (a 256 MiB HAR over loopback takes a few seconds). */
export const REQUEST_TIMEOUT_MS = 120_000;
/** The page needs a handful of connections; more than this are refused at accept. */
export const MAX_CONNECTIONS = 256;

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLarge(`The request body is over ${MAX_BODY_BYTES / 1024 / 1024} MiB.`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A thrown error's status for the client: codes the service uses on purpose keep their meaning. */
function statusOf(code: string): number {
  if (code === ErrorCodes.API_BAD_REQUEST) return 400;
  if (code === ErrorCodes.NOT_FOUND) return 404;
  if (code === ErrorCodes.INTERNAL) return 500;
  return 409;
}

function warn(what: string, err: unknown): void {
  process.emitWarning(`netlens serve: ${what}: ${(err as Error)?.stack ?? String(err)}`);
}

export async function startHttpTransport(options: HttpTransportOptions): Promise<HttpTransport> {
  const token = options.token ?? crypto.randomBytes(32).toString('base64url');
  const { service } = options;
  const staticDir = options.staticDir ? path.resolve(options.staticDir) : undefined;
  let port = 0;
  const guard = createGuard(token, () => port);
  const events = eventSockets(service);

  async function handleCommand(req: http.IncomingMessage, res: http.ServerResponse, name: string): Promise<void> {
    if (req.method !== 'POST') return sendError(res, 405, ErrorCodes.API_BAD_REQUEST, 'Commands are POST requests.');
    // Routing: an unknown path is a 404 before any body is read (invoke checks the name again).
    if (!isCommandName(name)) return sendError(res, 404, ErrorCodes.API_BAD_REQUEST, `Unknown command "${name.slice(0, 100)}".`);
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return sendError(res, 415, ErrorCodes.API_BAD_REQUEST, 'Commands need Content-Type: application/json.');
    }
    let args: unknown;
    try {
      const text = await readBody(req);
      args = text.trim() === '' ? undefined : JSON.parse(text);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        // Stop reading: the rest of the body is not worth the memory; the client learns why first.
        res.setHeader('connection', 'close');
        return sendError(res, 413, ErrorCodes.API_BAD_REQUEST, err.message);
      }
      return sendError(res, 400, ErrorCodes.API_BAD_REQUEST, `Malformed command body: ${(err as Error).message}`);
    }
    const reply = await invoke(service, name, args, { where: 'netlens serve' });
    if (reply.ok) sendJson(res, 200, reply);
    else sendError(res, statusOf(reply.error.code), reply.error.code, reply.error.message);
  }

  function refuse(res: http.ServerResponse, api: boolean, [status, code, message]: Refusal): void {
    if (api) sendError(res, status, code, message);
    else sendText(res, status, message);
  }

  async function handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = parseTarget(req.url);
    if ('error' in target) return sendText(res, 400, target.error);
    const isApi = target.path.startsWith('/api/');
    const refused = isApi ? guard.api(req) : guard.foreign(req);
    if (refused) return refuse(res, isApi, refused);
    if (isApi) return handleCommand(req, res, target.path.slice('/api/'.length));
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed.');
    serveStatic(req, res, target.path, staticDir, port);
  }

  function handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const target = parseTarget(req.url);
    if ('error' in target) return sendRaw(socket, 400, target.error);
    if (target.path !== '/api/events') return sendRaw(socket, 404, 'Not found');
    const refused = guard.api(req, { socket: true });
    if (refused) return sendRaw(socket, refused[0], refused[2]);
    events.upgrade(req, socket, head);
  }

  // Node checks the header/request timeouts on this interval (default 30 s): check often enough that they hold.
  const server = http.createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    const fail = (err: unknown) => {
      warn(`${String(req.method).slice(0, 20)} request failed`, err);
      if (!res.headersSent)
        sendError(res, 500, ErrorCodes.INTERNAL, 'Netlens internal error; the details are on the terminal running "netlens serve".');
      else res.destroy();
    };
    try {
      handleRequest(req, res).catch(fail);
    } catch (err) {
      fail(err);
    }
  });
  server.headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.maxConnections = MAX_CONNECTIONS;

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the socket over without its error listener: a reset here would otherwise be an uncaught 'error'.
    socket.on('error', () => socket.destroy());
    try {
      handleUpgrade(req, socket, head);
    } catch (err) {
      warn('upgrade failed', err);
      sendRaw(socket, 500, 'Netlens internal error');
    }
  });

  // Bytes Node's parser refuses (bad request line, header overflow, header timeout): the answer
  // Node would give by default, then the socket is closed. A reset socket is just dropped.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as { bytesWritten?: number }).bytesWritten) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    sendRaw(
      socket,
      status,
      status === 431 ? 'Request header fields too large.' : status === 408 ? 'Request timeout.' : 'Bad request.',
      1_000,
    );
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
      events.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
