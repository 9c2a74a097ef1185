/**
 * Client-leg timeouts, checked by one sweeping timer over the open client
 * connections (the cost per request is a counter and a timestamp, as in
 * upstream/deadlines.ts; a deadline fires at most a tenth of its length late).
 *
 * HTTP/1.x connection (plain listener, cleartext in a tunnel, intercepted h1):
 *  - no request in flight and no byte since the last response: closed after
 *    `idleTimeoutMs` (keep-alive);
 *  - the bytes of a request head arriving (or a new connection): the head must be
 *    complete within `headerTimeoutMs`, however slowly bytes trickle in
 *    (slowloris): 408 if some bytes came, a plain close if none did;
 *  - a request in flight whose body makes no progress for `bodyTimeoutMs`
 *    (408 if no response started, else a close), or a response the client
 *    stops reading for `bodyTimeoutMs` (a close).
 * HTTP/2 session: no open stream for `idleTimeoutMs` (from the handshake or the
 * last stream's end) → GOAWAY and close. And a liveness PING once per quiet spell
 * (no byte from the client for 1 s), destroyed if unanswered in 5 s: after a
 * connection error (a frame over SETTINGS_MAX_FRAME_SIZE, a bad header block)
 * nghttp2 sends GOAWAY and Node stops reading the socket without telling
 * JavaScript, so the client's FIN is never seen and the socket sat in CLOSE-WAIT
 * for good (h2spec left 37 behind). The unanswered PING is how we notice.
 *
 * Why not Node's own headersTimeout / socket.setTimeout: the first is checked only
 * for servers that listen (not for sockets handed over from CONNECT) and the second
 * is an idle timer that a byte every few seconds keeps resetting.
 */
import type http from 'node:http';
import type http2 from 'node:http2';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ExchangeError } from '../model.js';
import { ErrorCodes } from '../errors.js';

export interface ClientTimeoutOptions {
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
}

interface H1Conn {
  socket: net.Socket;
  id: string;
  /** Requests whose response has not finished, oldest first. */
  inFlight: { req: http.IncomingMessage; res: http.ServerResponse }[];
  /** When the current wait (idle, or head in progress) began. */
  since: number;
  /** Bytes of a request head have arrived since `since` (or the connection is new). */
  inHead: boolean;
  /** Any byte at all since `since` (decides 408 versus a silent close). */
  gotBytes: boolean;
  lastRead: number;
  lastReadAt: number;
  lastWritten: number;
  lastPendingWrite: number;
  lastWriteAt: number;
}

interface H2Conn {
  session: http2.ServerHttp2Session;
  streams: number;
  since: number;
  closingAt?: number;
  lastRead: number;
  lastReadAt: number;
  /** A liveness PING was sent in the current quiet spell (at this time; cleared when answered or bytes arrive). */
  pingAt?: number;
  /** The current quiet spell already had its PING answered. */
  pinged: boolean;
}

const TIMEOUT_RECORD_TTL_MS = 10_000;
const GOAWAY_GRACE_MS = 1_000;
/** HTTP/2 liveness check (see the file comment): after this long without a byte from the client… */
const H2_QUIET_MS = 1_000;
/** …one PING, which must be answered within this long. */
const H2_PING_TIMEOUT_MS = 5_000;

function bytesRead(socket: net.Socket): number {
  // An intercepted h1 socket is a TLS socket over the CONNECT socket: count the wire bytes.
  const parent = (socket as net.Socket & { _parent?: net.Socket })._parent;
  return (parent ?? socket).bytesRead;
}

function timeoutResponse(message: string): string {
  const body = `Netlens: ${message}\n`;
  return `HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export class ClientTimeouts {
  private readonly h1 = new Map<net.Socket, H1Conn>();
  private readonly h2 = new Set<H2Conn>();
  /** Why a connection was closed by a timeout, for the exchange it ended (see reasonFor). */
  private readonly reasons = new Map<string, { error: ExchangeError; at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly period: number;
  /** Connections closed by each kind of timeout so far (for tests and docs). */
  readonly counts = { header: 0, idle: 0, body: 0, send: 0, h2Idle: 0, h2Dead: 0 };

  constructor(private readonly opts: ClientTimeoutOptions) {
    const shortest = Math.min(opts.headerTimeoutMs, opts.idleTimeoutMs, opts.bodyTimeoutMs);
    this.period = Math.max(10, Math.min(1000, shortest / 10));
  }

  /** Starts watching an HTTP/1.x client connection (its first request head is due within the header timeout). */
  watchH1(socket: net.Socket, id: string): void {
    if (this.h1.has(socket) || socket.destroyed) return;
    const now = performance.now();
    const read = bytesRead(socket);
    const conn: H1Conn = {
      socket,
      id,
      inFlight: [],
      since: now,
      inHead: true,
      gotBytes: read > 0,
      lastRead: read,
      lastReadAt: now,
      lastWritten: socket.bytesWritten,
      lastPendingWrite: socket.writableLength,
      lastWriteAt: now,
    };
    this.h1.set(socket, conn);
    socket.once('close', () => this.h1.delete(socket));
    this.arm();
  }

  /** The socket left HTTP (Upgrade, CONNECT): its new owner bounds it. */
  release(socket: net.Socket): void {
    this.h1.delete(socket);
  }

  /** A request head arrived on a watched HTTP/1.x connection. */
  onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const conn = this.h1.get(req.socket as net.Socket);
    if (!conn) return;
    const entry = { req, res };
    conn.inFlight.push(entry);
    res.once('close', () => {
      const i = conn.inFlight.indexOf(entry);
      if (i >= 0) conn.inFlight.splice(i, 1);
      if (conn.inFlight.length === 0) this.becomeIdle(conn);
    });
  }

  /** Starts watching an HTTP/2 session on an intercepted connection. */
  watchH2(session: http2.ServerHttp2Session): void {
    const now = performance.now();
    const conn: H2Conn = {
      session,
      streams: 0,
      since: now,
      lastRead: bytesRead(session.socket as net.Socket),
      lastReadAt: now,
      pinged: false,
    };
    this.h2.add(conn);
    // Two functions per session, not two closures per stream ('close' comes once: no once() wrapper either).
    const onStreamClose = () => {
      conn.streams--;
      if (conn.streams === 0) conn.since = performance.now();
    };
    session.on('stream', (stream: http2.ServerHttp2Stream) => {
      conn.streams++;
      stream.on('close', onStreamClose);
    });
    session.once('close', () => this.h2.delete(conn));
    this.arm();
  }

  /**
   * The timeout that closed this client connection, if one did in the last seconds:
   * the exchange it cut short is recorded with it instead of "client aborted".
   */
  reasonFor(clientConnectionId: string): ExchangeError | undefined {
    return this.reasons.get(clientConnectionId)?.error;
  }

  /** Connections being watched (tests). */
  get watching(): { h1: number; h2: number } {
    return { h1: this.h1.size, h2: this.h2.size };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.h1.clear();
    this.h2.clear();
  }

  private becomeIdle(conn: H1Conn): void {
    const now = performance.now();
    conn.since = now;
    conn.inHead = false;
    conn.gotBytes = false;
    conn.lastRead = bytesRead(conn.socket);
    conn.lastReadAt = now;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.period);
    this.timer.unref();
  }

  private sweep(): void {
    const now = performance.now();
    for (const conn of this.h1.values()) this.checkH1(conn, now);
    for (const conn of this.h2) this.checkH2(conn, now);
    for (const [id, r] of this.reasons) if (now - r.at > TIMEOUT_RECORD_TTL_MS) this.reasons.delete(id);
    if (this.h1.size === 0 && this.h2.size === 0 && this.reasons.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private checkH1(conn: H1Conn, now: number): void {
    const { socket, opts } = { socket: conn.socket, opts: this.opts };
    if (socket.destroyed) {
      this.h1.delete(socket);
      return;
    }
    const read = bytesRead(socket);
    if (read !== conn.lastRead) {
      conn.lastRead = read;
      conn.lastReadAt = now;
      if (conn.inFlight.length === 0) {
        if (!conn.inHead) conn.since = now;
        conn.inHead = true;
        conn.gotBytes = true;
      }
    }
    const written = socket.bytesWritten;
    const pendingWrite = socket.writableLength;
    if (written !== conn.lastWritten || pendingWrite !== conn.lastPendingWrite) {
      conn.lastWritten = written;
      conn.lastPendingWrite = pendingWrite;
      conn.lastWriteAt = now;
    }
    if (conn.inFlight.length === 0) {
      if (conn.inHead && now - conn.since >= opts.headerTimeoutMs) {
        this.counts.header++;
        this.h1.delete(socket);
        if (conn.gotBytes) this.answer408(socket, `no complete request head within ${opts.headerTimeoutMs} ms`);
        else socket.destroy();
      } else if (!conn.inHead && now - conn.since >= opts.idleTimeoutMs) {
        this.counts.idle++;
        this.h1.delete(socket);
        socket.destroy();
      }
      return;
    }
    const bodyPending = conn.inFlight.some((e) => !e.req.complete);
    if (bodyPending && now - conn.lastReadAt >= opts.bodyTimeoutMs) {
      this.counts.body++;
      const message = `the client sent no request body bytes for ${opts.bodyTimeoutMs} ms`;
      this.expire(conn, message);
      if (!conn.inFlight[0].res.headersSent) this.answer408(socket, message);
      else socket.destroy();
    } else if (pendingWrite > 0 && now - conn.lastWriteAt >= opts.bodyTimeoutMs) {
      this.counts.send++;
      this.expire(conn, `the client read none of the response for ${opts.bodyTimeoutMs} ms`);
      socket.destroy();
    }
  }

  private checkH2(conn: H2Conn, now: number): void {
    const { session } = conn;
    if (session.destroyed) {
      this.h2.delete(conn);
      return;
    }
    if (conn.closingAt !== undefined) {
      // GOAWAY sent; a peer that does not close in time is cut off.
      if (now - conn.closingAt >= GOAWAY_GRACE_MS) session.destroy();
      return;
    }
    if (conn.streams === 0 && now - conn.since >= this.opts.idleTimeoutMs) {
      this.counts.h2Idle++;
      conn.closingAt = now;
      session.close();
      return;
    }
    const read = bytesRead(session.socket as net.Socket);
    if (read !== conn.lastRead) {
      conn.lastRead = read;
      conn.lastReadAt = now;
      conn.pinged = false;
      conn.pingAt = undefined;
      return;
    }
    if (conn.pingAt !== undefined) {
      if (now - conn.pingAt >= H2_PING_TIMEOUT_MS) {
        this.counts.h2Dead++;
        session.destroy();
      }
    } else if (!conn.pinged && now - conn.lastReadAt >= H2_QUIET_MS) {
      conn.pingAt = now;
      try {
        session.ping((err) => {
          conn.pingAt = undefined;
          conn.pinged = true;
          if (err && !session.destroyed) session.destroy();
        });
      } catch {
        session.destroy();
      }
    }
  }

  private expire(conn: H1Conn, message: string): void {
    this.h1.delete(conn.socket);
    this.reasons.set(conn.id, {
      error: { code: ErrorCodes.CLIENT_TIMEOUT, message: `Client timeout: ${message}`, side: 'client' },
      at: performance.now(),
    });
    this.arm();
  }

  /** 408 and close: the socket is destroyed once the answer is flushed (or at once if it cannot be). */
  private answer408(socket: net.Socket, message: string): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(timeoutResponse(message));
    socket.destroySoon();
    // A client that does not read cannot hold the socket past one more period.
    setTimeout(() => socket.destroy(), GOAWAY_GRACE_MS).unref();
  }
}
