/**
 * Upstream connections, kept alive and reused: HTTP/1.1 connections on undici
 * (h1-client.ts, LIFO per origin) and one pooled HTTP/2 session per origin.
 * Opening a new TCP+TLS connection per request is the classic proxy slowdown
 * this avoids.
 *
 * Protocol choice for https origins when HTTP/2 is on: the first connection to
 * an origin offers ALPN ["h2", "http/1.1"] and remembers the answer. If the origin
 * picks http/1.1, that already-open socket is stashed and becomes the first
 * HTTP/1.1 connection (not thrown away), so no request pays for a probe.
 *
 * Nagle: every socket created here gets setNoDelay(!nagle) (Node's net/tls
 * connect default is Nagle ON; undici's own connector would force it off).
 */
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { rootsPlus } from '../tls/root-trust.js';
import { LruMap } from '../tls/lru.js';
import { performance } from 'node:perf_hooks';
import { Deadlines } from './deadlines.js';
import { LinkedList } from '../linked-list.js';
import { H1Clients, type Dialed } from './h1-client.js';
import { ErrorCodes } from '../errors.js';
import type { Timeline } from '../timeline/recorder.js';

/** Connection-level facts a request needs for its timings and HAR fields. */
export interface ConnectionInfo {
  id: string;
  /** Timestamps of the connection's setup (requests that waited for it report the part they waited for). */
  dialStart?: number;
  dnsEnd?: number;
  connectEnd?: number;
  tlsEnd?: number;
  /** Set when the first exchange on this connection has claimed the setup timings. */
  claimed: boolean;
}

export interface PoolOptions {
  /** Socket timeline recording every upstream socket's reads and writes (off when undefined). */
  timeline?: Timeline;
  nagle: boolean;
  http2: boolean;
  /** CA certificates trusted upstream besides Node's bundled roots (PEM). */
  extraCA?: string[];
  rejectUnauthorized: boolean;
  /** Response-body progress deadline, ms (0: none). See body-timeout.ts. */
  bodyTimeoutMs?: number;
}

type Protocol = 'h2' | 'http/1.1';

/** Origins (host, port and server name) whose TLS sessions are kept for resumption, least recently used dropped. */
const SESSION_ORIGINS = 256;
/** Sessions kept per origin: each connection takes one (TLS 1.3 tickets are meant for one use) and brings new ones. */
const SESSIONS_PER_ORIGIN = 4;

/** Chrome's HTTP/2 receive windows (6 MiB per stream, 15 MiB per connection). */
const H2_STREAM_WINDOW = 6 * 1024 * 1024;
const H2_CONNECTION_WINDOW = 15 * 1024 * 1024;

let connectionCounter = 0;
const info = new WeakMap<object, ConnectionInfo>();
/** Pooled HTTP/2 sessions whose origin has sent its SETTINGS (before that, remoteSettings holds nghttp2's defaults). */
const settingsSeen = new WeakSet<http2.ClientHttp2Session>();

/** Called with a pooled HTTP/2 session's GOAWAY (code, last stream id). */
export type GoawayWatcher = (code: number, lastStreamID: number) => void;
const goawayWatchers = new WeakMap<http2.ClientHttp2Session, LinkedList<GoawayWatcher>>();

/**
 * The requests in flight on a session that want its GOAWAY (forward.ts). One 'goaway'
 * listener per session calls them: a listener per request (hundreds on a busy page)
 * made every removal an array scan and splice. A list, not a Set: every request joins
 * and leaves it (linked-list.ts says why that rules out a Set).
 */
export function h2GoawayWatchers(session: http2.ClientHttp2Session): LinkedList<GoawayWatcher> {
  let list = goawayWatchers.get(session);
  if (!list) {
    const watchers = (list = new LinkedList());
    goawayWatchers.set(session, watchers);
    session.on('goaway', (code: number, last: number) => {
      for (const w of watchers.values()) w(code, last);
    });
  }
  return list;
}

/** Connection info for a socket (or h2 session), created on first sight. */
export function connectionInfo(socket: object): ConnectionInfo {
  let i = info.get(socket);
  if (!i) {
    i = { id: `u${++connectionCounter}`, claimed: false };
    info.set(socket, i);
  }
  return i;
}

/** Records dns/connect/tls timestamps on a socket that is connecting now. */
export function watchConnect(socket: net.Socket, secure: boolean): ConnectionInfo {
  const i = connectionInfo(socket);
  i.dialStart = performance.now();
  socket.once('lookup', () => (i.dnsEnd = performance.now()));
  socket.once('connect', () => (i.connectEnd = performance.now()));
  if (secure) socket.once('secureConnect', () => (i.tlsEnd = performance.now()));
  return i;
}

/** Error listener for a socket nobody else is watching yet. */
function destroyOnError(this: net.Socket): void {
  this.destroy();
}

export function originKey(host: string, port: number): string {
  return `${host}:${port}`;
}

export class UpstreamPool {
  /** HTTP/1.1 connections (plain and TLS), per origin. */
  readonly h1: H1Clients;
  private readonly protocols = new Map<string, Protocol>();
  private readonly probes = new Map<string, Promise<Protocol>>();
  private readonly sessions = new Map<string, http2.ClientHttp2Session>();
  /** An HTTP/2 connection being opened per origin, shared by the requests that wait for it. */
  private readonly h2Connecting = new Map<string, Promise<http2.ClientHttp2Session>>();
  /** Sockets from an ALPN probe that answered http/1.1, waiting for the first HTTP/1.1 request. */
  private readonly stash = new Map<string, tls.TLSSocket[]>();
  /** Preconnect sockets still handshaking, per origin (see preconnect). */
  private readonly preconnecting = new Map<string, tls.TLSSocket[]>();
  private closed = false;
  /** Response-head deadlines of requests in flight (one sweeping timer for all). */
  readonly deadlines = new Deadlines();
  /**
   * One TLS context for every upstream connection. Passing `ca` to each
   * tls.connect would build a new context from ~140 root certificates per
   * connection (and made Node's Agent pool key a megabyte-long string): the lab
   * measured that as hundreds of milliseconds of CPU per page load.
   */
  readonly secureContext: tls.SecureContext;
  /**
   * TLS sessions (TLS 1.3 tickets) from earlier connections, resumed by the next ones to the same
   * origin, as browsers do. A resumed handshake skips what a full one costs this process: parsing
   * and verifying the origin's certificate chain, and Node turning it into an object to check the
   * name (getPeerCertificate). Measured for issue 17: an intercepted HTTP/1.1 page load opens six
   * upstream connections, and those steps took about 0.7 ms of the proxy's main thread for each.
   */
  private readonly tlsSessions = new LruMap<string, Buffer[]>(SESSION_ORIGINS);

  /** The socket timeline, when on (forward.ts records HTTP/2 streams into it). */
  get timeline(): Timeline | undefined {
    return this.opts.timeline;
  }

  /** Response-body progress deadline, ms (0: none). */
  get bodyTimeoutMs(): number {
    return this.opts.bodyTimeoutMs ?? 0;
  }

  /**
   * Called each time an origin's pooled HTTP/2 session receives SETTINGS from it, with the origin's host and port as
   * requests name them (server/h2-stream-limit.ts passes its concurrent-stream limit on to the browser leg).
   */
  onOriginSettings?: (host: string, port: number, settings: http2.Settings) => void;

  constructor(private readonly opts: PoolOptions) {
    this.secureContext = rootsPlus(opts.extraCA ?? []);
    this.h1 = new H1Clients((secure, host, port) => this.dialH1(secure, host, port));
  }

  /** A socket for a new HTTP/1.1 connection: the stashed probe socket if there is one, else a new one. */
  private dialH1(secure: boolean, host: string, port: number): Dialed {
    if (secure) {
      const key = originKey(host, port);
      const stashed = this.takeStashed(key);
      if (stashed) return { socket: stashed, ready: true };
      // A preconnect still handshaking is closer to ready than a new dial; this request waits for it (and reports the wait).
      const pending = this.preconnecting.get(key)?.shift();
      if (pending) {
        connectionInfo(pending).claimed = false;
        return { socket: pending, ready: false };
      }
      return { socket: this.connectTls(host, port, host, ['http/1.1']), ready: false };
    }
    const socket = net.connect({ host, port });
    socket.setNoDelay(!this.opts.nagle);
    this.opts.timeline?.watch(socket, watchConnect(socket, false).id, 'upstream', this.opts.nagle);
    return { socket, ready: false };
  }

  private takeStashed(key: string): tls.TLSSocket | undefined {
    const list = this.stash.get(key);
    while (list && list.length) {
      const s = list.pop()!;
      if (s.destroyed) continue;
      // From here on the socket is the HTTP/1.1 connection's: no stash timeout, undici handles its errors.
      s.setTimeout(0);
      s.off('error', destroyOnError);
      return s;
    }
    return undefined;
  }

  /** The protocol already known for an https origin (no probe needed), if any: lets a request skip an await. */
  knownProtocol(host: string, port: number): Protocol | undefined {
    if (!this.opts.http2) return 'http/1.1';
    return this.protocols.get(originKey(host, port));
  }

  /** Which protocol to use for an https origin (probing it on first use). */
  async protocolFor(host: string, port: number, servername: string): Promise<Protocol> {
    if (!this.opts.http2) return 'http/1.1';
    const key = originKey(host, port);
    const known = this.protocols.get(key);
    if (known) return known;
    let probe = this.probes.get(key);
    if (!probe) {
      probe = this.probe(host, port, servername).finally(() => this.probes.delete(key));
      this.probes.set(key, probe);
    }
    return probe;
  }

  /** A new upstream TLS connection with our trust settings, Nagle setting and timing hooks. */
  private connectTls(host: string, port: number, servername: string, ALPNProtocols: string[]): tls.TLSSocket {
    // Sessions are per name the certificate was checked for: a resumed session is not checked again.
    const sessionKey = `${host} ${port} ${servername}`;
    const session = this.tlsSessions.get(sessionKey)?.pop();
    const socket = tls.connect({
      host,
      port,
      servername: net.isIP(servername) ? undefined : servername,
      ALPNProtocols,
      secureContext: this.secureContext,
      rejectUnauthorized: this.opts.rejectUnauthorized,
      ...(session ? { session } : {}),
    });
    socket.on('session', (ticket: Buffer) => {
      // Only from a connection whose handshake passed our checks (an unverified one never gets this far unless insecure).
      if (this.closed || socket.destroyed || (this.opts.rejectUnauthorized && !socket.authorized)) return;
      let list = this.tlsSessions.get(sessionKey);
      if (!list) this.tlsSessions.set(sessionKey, (list = []));
      list.push(ticket);
      if (list.length > SESSIONS_PER_ORIGIN) list.shift();
    });
    socket.setNoDelay(!this.opts.nagle);
    this.opts.timeline?.watch(socket, watchConnect(socket, true).id, 'upstream', this.opts.nagle);
    return socket;
  }

  private probe(host: string, port: number, servername: string): Promise<Protocol> {
    return new Promise((resolve, reject) => {
      const socket = this.connectTls(host, port, servername, ['h2', 'http/1.1']);
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        const key = originKey(host, port);
        const proto: Protocol = socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1';
        this.protocols.set(key, proto);
        if (proto === 'h2') {
          this.adoptSession(key, host, port, socket);
        } else {
          this.stashSocket(key, socket);
        }
        resolve(proto);
      });
    });
  }

  /** Keeps an open TLS socket for the next new HTTP/1.1 connection to the origin (dialH1 takes it). */
  private stashSocket(key: string, socket: tls.TLSSocket): void {
    const list = this.stash.get(key) ?? [];
    list.push(socket);
    this.stash.set(key, list);
    // A stashed socket nobody picks up must not leak: drop it after a while.
    socket.setTimeout(5000, () => socket.destroy());
    // Nobody else listens while it waits: an error (origin reset) must not be uncaught.
    socket.on('error', destroyOnError);
    socket.once('close', () => {
      const l = this.stash.get(key);
      if (l)
        this.stash.set(
          key,
          l.filter((s) => s !== socket),
        );
    });
  }

  /**
   * Opens upstream connections for intercepted HTTP/1.1 clients before their
   * requests arrive, up to one per client connection to the origin (`wanted`).
   *
   * Why: a browser opens its connections at once, while the page is still
   * quiet; a pool that dials only when a request finds no idle connection
   * opens them later, in the busiest moment of the page load, and those
   * requests wait for a TLS handshake the direct browser had already done.
   * A preconnected socket's setup is nobody's: no exchange reports it as its
   * connect time (as with a browser's preconnect), except the part a request
   * that came while it was still in flight waited for (docs/timings.md). Over HTTP/2 this is the
   * protocol probe (one connection serves every client).
   */
  preconnect(host: string, port: number, wanted: number): void {
    if (this.closed) return;
    const key = originKey(host, port);
    const known = this.knownProtocol(host, port);
    if (!known) {
      void this.protocolFor(host, port, host).catch(() => undefined);
      return;
    }
    if (known !== 'http/1.1') return;
    const pending = this.preconnecting.get(key) ?? [];
    const have = this.h1.count(true, host, port) + (this.stash.get(key)?.length ?? 0) + pending.length;
    if (have >= wanted) return;
    const socket = this.connectTls(host, port, host, ['http/1.1']);
    connectionInfo(socket).claimed = true;
    pending.push(socket);
    this.preconnecting.set(key, pending);
    // Still pending when done: nobody took it over, so it waits in the stash.
    const settle = () => {
      const i = pending.indexOf(socket);
      if (i < 0) return false;
      pending.splice(i, 1);
      if (pending.length === 0 && this.preconnecting.get(key) === pending) this.preconnecting.delete(key);
      return true;
    };
    const onError = () => {
      if (settle()) socket.destroy();
    };
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      socket.off('error', onError);
      if (!settle()) return; // taken by a request meanwhile: its connection now
      if (this.closed) socket.destroy();
      else this.stashSocket(key, socket);
    });
  }

  private adoptSession(key: string, host: string, port: number, socket: tls.TLSSocket): http2.ClientHttp2Session {
    const authority = `https://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    // Flow-control windows as large as Chrome's: with HTTP/2's 64 KiB defaults the
    // origin stalls waiting for WINDOW_UPDATEs whenever a few responses are large,
    // which a direct browser connection never does. Memory stays bounded: data is
    // only buffered while the client leg applies backpressure.
    const session = http2.connect(authority, { createConnection: () => socket, settings: { initialWindowSize: H2_STREAM_WINDOW } });
    session.once('connect', () => session.setLocalWindowSize(H2_CONNECTION_WINDOW));
    info.set(session, connectionInfo(socket));
    this.sessions.set(key, session);
    const forget = () => {
      if (this.sessions.get(key) === session) this.sessions.delete(key);
    };
    session.on('close', forget);
    session.on('goaway', forget);
    session.on('error', forget);
    session.on('remoteSettings', (settings: http2.Settings) => {
      settingsSeen.add(session);
      this.onOriginSettings?.(host, port, settings);
    });
    // An idle pooled session must not keep the process (or a stopped proxy) alive.
    session.unref();
    return session;
  }

  /** The pooled h2 session for an origin if one is open (no promise, no wait). */
  openH2Session(host: string, port: number): http2.ClientHttp2Session | undefined {
    const s = this.sessions.get(originKey(host, port));
    return s && !s.closed && !s.destroyed ? s : undefined;
  }

  /** The SETTINGS the origin's open pooled HTTP/2 session received last (undefined: no such session, or none yet). */
  originSettings(host: string, port: number): http2.Settings | undefined {
    const s = this.openH2Session(host, port);
    return s && settingsSeen.has(s) ? s.remoteSettings : undefined;
  }

  /**
   * The pooled h2 session for an origin, opening a new one if needed: one at a time per origin, shared by the requests
   * that wait for it. Each one opened its own before, and the pool kept the last: the others stayed open for good
   * (a client resetting half its streams at once, whose origin ended the pooled session again and again, left
   * 98-207 connections to the origin open after 20,000 requests; upstream-h2-connect.test.ts).
   */
  async h2Session(host: string, port: number, servername: string): Promise<http2.ClientHttp2Session> {
    const key = originKey(host, port);
    const existing = this.sessions.get(key);
    if (existing && !existing.closed && !existing.destroyed) return existing;
    let connecting = this.h2Connecting.get(key);
    if (!connecting) {
      connecting = this.connectH2(key, host, port, servername).finally(() => this.h2Connecting.delete(key));
      this.h2Connecting.set(key, connecting);
    }
    return connecting;
  }

  private connectH2(key: string, host: string, port: number, servername: string): Promise<http2.ClientHttp2Session> {
    // Connect a fresh TLS socket with ALPN h2 only; the origin already said it speaks h2.
    return new Promise((resolve, reject) => {
      const socket = this.connectTls(host, port, servername, ['h2']);
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        if (socket.alpnProtocol !== 'h2') {
          this.protocols.set(key, 'http/1.1');
          socket.destroy();
          reject(Object.assign(new Error('origin stopped offering h2'), { code: ErrorCodes.H2_DOWNGRADE }));
          return;
        }
        resolve(this.adoptSession(key, host, port, socket));
      });
    });
  }

  /** Whether upstream certificates are verified (for connections made outside the pool, e.g. asterisk.ts). */
  get rejectUnauthorized(): boolean {
    return this.opts.rejectUnauthorized;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.deadlines.close();
    this.h1.close();
    for (const s of this.sessions.values()) s.destroy();
    this.sessions.clear();
    for (const list of this.stash.values()) for (const s of list) s.destroy();
    this.stash.clear();
    for (const list of this.preconnecting.values()) for (const s of list) s.destroy();
    this.preconnecting.clear();
  }
}
