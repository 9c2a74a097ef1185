/**
 * A raw origin (net.createServer, or TLS with a Netlens-issued certificate) that logs
 * the bytes it receives per connection and reads them with the strict parser in
 * wire.ts. Every complete request is answered `200` with `X-Origin-Id: <id>` and an
 * empty body, so a client can tell which of its answers came from which request the
 * origin saw. Anything the strict parser refuses is logged as an origin parse error:
 * the proxy must never send bytes a careful server could read two ways.
 */
import net from 'node:net';
import tls from 'node:tls';
import { parseRequest, type WireRequest } from './wire.js';

export interface OriginRequest extends WireRequest {
  id: string;
  connection: number;
  /** When the request was complete at the origin (Date.now()). */
  at: number;
}

export interface OriginConnectionLog {
  id: number;
  bytes: Buffer[];
  /** Bytes left that are not a complete request when the connection closed. */
  leftover: number;
}

export interface RawOrigin {
  port: number;
  requests: OriginRequest[];
  parseErrors: { connection: number; reason: string; bytes: string }[];
  connections: OriginConnectionLog[];
  /** Calls `fn` with every complete request as it arrives. */
  onRequest(fn: (q: OriginRequest) => void): void;
  close(): Promise<void>;
}

export async function rawOrigin(opts: { tls?: { cert: string; key: string } } = {}): Promise<RawOrigin> {
  const requests: OriginRequest[] = [];
  const parseErrors: RawOrigin['parseErrors'] = [];
  const connections: OriginConnectionLog[] = [];
  const sockets = new Set<net.Socket>();
  const listeners: ((q: OriginRequest) => void)[] = [];
  const onSocket = (socket: net.Socket) => {
    sockets.add(socket);
    const log: OriginConnectionLog = { id: connections.length + 1, bytes: [], leftover: 0 };
    connections.push(log);
    let buf = Buffer.alloc(0);
    let n = 0;
    let failed = false;
    socket.on('data', (c: Buffer) => {
      log.bytes.push(c);
      if (failed) return;
      buf = Buffer.concat([buf, c]);
      for (;;) {
        const step = parseRequest(buf, 0);
        if (step.kind === 'more') break;
        if (step.kind === 'error') {
          failed = true;
          parseErrors.push({ connection: log.id, reason: step.reason, bytes: buf.toString('latin1').slice(0, 2000) });
          socket.end('HTTP/1.1 400 Bad Request\r\nX-Origin-Error: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
          return;
        }
        buf = buf.subarray(step.used);
        const id = `o${log.id}.${++n}`;
        const q: OriginRequest = { ...step.value, id, connection: log.id, at: Date.now() };
        requests.push(q);
        for (const fn of listeners) fn(q);
        socket.write(`HTTP/1.1 200 OK\r\nX-Origin-Id: ${id}\r\nContent-Length: 0\r\n\r\n`);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      log.leftover = buf.length;
      sockets.delete(socket);
    });
  };
  const server = opts.tls ? tls.createServer({ ...opts.tls, ALPNProtocols: ['http/1.1'] }, onSocket) : net.createServer(onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    parseErrors,
    connections,
    onRequest: (fn) => listeners.push(fn),
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
