/** Answers of `netlens serve`: JSON for the API, plain text for pages, raw for sockets past HTTP. */
import http from 'node:http';
import type { Duplex } from 'node:stream';

/** Every answer says what it is: no browser may sniff an API answer into HTML or script. */
const BASE_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

export function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { ok: false, error: { code, message } });
}

export function sendText(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent || res.destroyed) return;
  const data = `${message}\n`;
  res.writeHead(status, { ...BASE_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

/**
 * A complete HTTP/1.1 answer written on a raw socket (a refused WebSocket
 * upgrade, a request Node's parser rejected), then the socket is closed: after
 * our FIN the client's FIN ends it; a client that never sends one is cut after `lingerMs`.
 */
export function sendRaw(socket: Duplex, status: number, message: string, lingerMs = 5_000): void {
  const body = `${message}\n`;
  const head = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: text/plain; charset=utf-8',
    'X-Content-Type-Options: nosniff',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  if (socket.writable) socket.end(`${head}\r\n\r\n${body}`);
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
