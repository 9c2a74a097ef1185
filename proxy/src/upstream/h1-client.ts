/**
 * HTTP/1.1 upstream connections on undici: one undici Client per connection
 * (pipelining 1), kept per origin in a LIFO stack of idle connections.
 *
 * Why undici: its llhttp parser and plain request writer cost measurably less
 * CPU per exchange than Node's http.request + keep-alive Agent. Why our own
 * stack of single-connection Clients rather than undici's Pool: a request must
 * know which socket it went on (HAR connection id, setup timings claimed by the
 * first exchange), the first https connection to an origin may be the ALPN
 * probe's already-open socket, and reuse must be LIFO (the most recently used
 * socket is the one least likely to have been closed by the origin's idle timeout).
 *
 * Sockets are created by the pool's `dial` (our TLS context, trust settings,
 * Nagle setting and timing hooks); undici only speaks HTTP on them. undici
 * unrefs a socket while its Client is idle, so pooled connections never keep
 * the process alive.
 */
import net from 'node:net';
import tls from 'node:tls';
import type Client from 'undici/lib/dispatcher/client.js';
import { lazyRequireVendored } from '../lazy-require.js';

// Loaded with the first HTTP/1.1 upstream connection: undici's client is ~11 MB
// of resident memory (more once its llhttp WebAssembly runs), which a proxy
// idling, or one whose origins all speak HTTP/2, need not pay.
const loadClient = lazyRequireVendored<typeof Client>('undici/lib/dispatcher/client.js', 'undici-client.cjs');

/** A socket from the pool: `ready` when it is already connected (a stashed probe socket). */
export interface Dialed {
  socket: net.Socket;
  ready: boolean;
}

export type Dial = (secure: boolean, host: string, port: number) => Dialed;

/**
 * Idle time before we close a connection whose origin did not announce its own
 * (Keep-Alive: timeout=N). Node's Agent never closed idle sockets itself;
 * browsers keep used idle sockets for minutes, so this stays long.
 */
const DEFAULT_KEEP_ALIVE_MS = 300_000;
/** Close this long before an origin's announced keep-alive timeout, so a request never races the origin's close. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
/** Idle connections kept per origin (Node's Agent default maxFreeSockets was 256 here too). */
const MAX_IDLE_PER_ORIGIN = 256;

type ConnectCallback = (err: Error | null, socket: net.Socket | null) => void;

function closedWhileConnecting(): Error {
  return Object.assign(new Error('socket closed while connecting'), { code: 'ECONNRESET' });
}

/** One upstream HTTP/1.1 connection: an undici Client and the socket it currently talks on. */
export class H1Connection {
  readonly client: Client;
  /** The socket of the current (or last) connection; undici may reconnect a Client, and this follows. */
  socket: net.Socket | undefined;
  busy = true;
  dropped = false;

  constructor(
    readonly key: string,
    origin: string,
    dial: () => Dialed,
  ) {
    const connect = (_opts: unknown, cb: ConnectCallback): void => {
      let dialed: Dialed;
      try {
        dialed = dial();
      } catch (err) {
        queueMicrotask(() => cb(err as Error, null));
        return;
      }
      const { socket } = dialed;
      this.socket = socket;
      if (dialed.ready) {
        // Never call back synchronously: undici is inside its resume loop here,
        // which ignores the resume a synchronous callback triggers, and the request would stall.
        process.nextTick(() => (socket.destroyed ? cb(closedWhileConnecting(), null) : cb(null, socket)));
        return;
      }
      const ready = socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect';
      const cleanup = () => {
        socket.off(ready, onReady);
        socket.off('error', onError);
        socket.off('close', onClose);
      };
      const onReady = () => {
        cleanup();
        cb(null, socket);
      };
      const onError = (err: Error) => {
        cleanup();
        cb(err, null);
      };
      const onClose = () => {
        cleanup();
        cb(closedWhileConnecting(), null);
      };
      socket.once(ready, onReady);
      socket.once('error', onError);
      socket.once('close', onClose);
    };
    const UndiciClient = loadClient();
    this.client = new UndiciClient(origin, {
      connect: connect as never,
      pipelining: 1,
      // The pool's response-head deadline does this job; a body may stream slowly on purpose.
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: DEFAULT_KEEP_ALIVE_MS,
      keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
    });
  }

  /** Alive and able to take the next request. */
  get usable(): boolean {
    return !this.dropped && !!this.socket && !this.socket.destroyed && !this.client.destroyed && !this.client.closed;
  }

  /** Tears the connection down (and with it any request on it). */
  destroy(err?: Error): void {
    this.dropped = true;
    this.client.destroy(err ?? null).catch(() => {});
    // A socket still connecting is not yet undici's: end it here so nothing lingers.
    this.socket?.destroy();
  }
}

/** Per-origin stacks of idle HTTP/1.1 connections. */
export class H1Clients {
  private readonly idle = new Map<string, H1Connection[]>();
  private readonly live = new Set<H1Connection>();
  private closed = false;

  constructor(private readonly dial: Dial) {}

  /** An idle connection to the origin (the most recently used), or a new one; marked busy until `release`. */
  acquire(secure: boolean, host: string, port: number): H1Connection {
    const key = `${secure ? 's' : ''}${host} ${port}`;
    const stack = this.idle.get(key);
    while (stack && stack.length) {
      const conn = stack.pop()!;
      if (conn.usable) {
        conn.busy = true;
        return conn;
      }
      this.drop(conn);
    }
    const origin = `${secure ? 'https' : 'http'}://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const conn = new H1Connection(key, origin, () => this.dial(secure, host, port));
    // An idle connection the origin closes is forgotten at once (a busy one is judged at release).
    conn.client.on('disconnect', () => {
      if (!conn.busy) this.drop(conn);
    });
    this.live.add(conn);
    if (this.closed) conn.destroy();
    return conn;
  }

  /** Connections to the origin alive now (busy or idle). */
  count(secure: boolean, host: string, port: number): number {
    const key = `${secure ? 's' : ''}${host} ${port}`;
    let n = 0;
    for (const conn of this.live) if (conn.key === key && conn.usable) n++;
    return n;
  }

  /** Returns a connection after its exchange ended (response complete, or failed). */
  release(conn: H1Connection): void {
    conn.busy = false;
    if (this.closed || !conn.usable) {
      this.drop(conn);
      return;
    }
    let stack = this.idle.get(conn.key);
    if (!stack) this.idle.set(conn.key, (stack = []));
    if (stack.length >= MAX_IDLE_PER_ORIGIN) {
      this.drop(conn);
      return;
    }
    stack.push(conn);
  }

  private drop(conn: H1Connection): void {
    if (!this.live.delete(conn)) return;
    const stack = this.idle.get(conn.key);
    if (stack) {
      const i = stack.indexOf(conn);
      if (i >= 0) stack.splice(i, 1);
      if (stack.length === 0) this.idle.delete(conn.key);
    }
    conn.destroy();
  }

  close(): void {
    this.closed = true;
    for (const conn of [...this.live]) this.drop(conn);
    this.idle.clear();
  }
}
