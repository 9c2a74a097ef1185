import os from 'node:os';
import path from 'node:path';
import type { HttpProtocol, RawHeaders } from './model.js';
import { DEFAULT_HOST_CACHE_SIZE } from './tls/ca.js';

/** A client request as the `respond` hook sees it (server replay, replay/server-replay.ts). */
export interface HookRequest {
  method: string;
  url: URL;
  /** As the client sent them (hop-by-hop included), order and case kept. */
  headers: RawHeaders;
  /** The whole request body (content-encoded as sent), null when there is none or it exceeded `maxBodyBytes`. */
  body: Buffer | null;
  protocol: HttpProtocol;
}

/** A response the proxy writes itself instead of asking the network. */
export interface HookAnswer {
  status: number;
  statusText?: string;
  /** Final headers for the client leg: framing headers (content-length) already right for `body`. */
  headers: RawHeaders;
  body: Buffer;
  /** True when the answer comes from a recording (Exchange.replayed), false for a made-up one (e.g. a 404 policy). */
  fromRecording: boolean;
  /** Wait this long before the head (recorded `wait`). */
  delayHeadMs?: number;
  /** Spread the body over this long (recorded `receive`). */
  spreadBodyMs?: number;
}

/**
 * Lets a caller answer requests instead of the network (server replay):
 * an answer, `forward` (the normal path), or `kill` (close the connection / reset the stream).
 */
export interface RespondHook {
  respond(req: HookRequest): Promise<HookAnswer | 'forward' | 'kill'>;
  /** Read request bodies up to this many bytes before calling `respond` (0: never read them; body is null). */
  maxBodyBytes: number;
}

/** ProxyOptions.relay: how response writes reach an HTTP/1.x client. */
export type RelayMode = 'coalesce' | 'naive';
export const RELAY_MODES: readonly RelayMode[] = ['coalesce', 'naive'];

export interface ProxyOptions {
  /** Interface to listen on. Default `127.0.0.1` (never an open relay). */
  host?: string;
  /** Port; 0 picks any free port. Default 8080. */
  port?: number;
  /** Terminate TLS inside CONNECT and record every request. Default true. */
  intercept?: boolean;
  /** Offer h2 to clients (ALPN) and use h2 upstream when the origin offers it. Default true. */
  http2?: boolean;
  /** Leave Nagle's algorithm on for every proxy socket. Default false (setNoDelay(true)). */
  nagle?: boolean;
  /**
   * How responses are written to HTTP/1.x clients. `coalesce` (default): the head leaves with the
   * first body chunk and chunks of one event-loop turn leave together. `naive`: the head is flushed
   * as a write of its own, then each upstream body chunk is written as it arrives, as a simple proxy
   * relays (server/naive-relay.ts; the lab's `+naive` cells). HTTP/2 client legs always coalesce.
   */
  relay?: RelayMode;
  /** Where the CA and sessions live. Default: $NETLENS_DATA_DIR or the user's data dir. */
  dataDir?: string;
  /** Accept clients that are not on loopback when bound elsewhere. Default false. */
  allowRemoteClients?: boolean;
  /** Per-body capture cap in bytes (request and response each). Default 4 MiB. 0 disables body capture. */
  bodyCaptureLimit?: number;
  /** Extra CA certificates (PEM) trusted for upstream TLS, besides the system roots and the Netlens CA. */
  upstreamCA?: string[];
  /** Do not verify upstream certificates (testing only). Default false. */
  insecureUpstream?: boolean;
  /** Retries of idempotent requests on upstream connection failures. Default 2. */
  retries?: number;
  /** Upstream response-head timeout in ms. Default 60 s. */
  upstreamTimeoutMs?: number;
  /**
   * Client legs (HTTP/1.x heads, TLS handshakes inside CONNECT): a request head, or the first byte
   * and TLS handshake of a tunnel, must arrive complete within this many ms. 408 (or a close when no
   * HTTP is possible yet). Default 60 s (nginx client_header_timeout).
   */
  headerTimeoutMs?: number;
  /** A client connection with no request in flight (HTTP/1.1 keep-alive, HTTP/2 without streams) is closed after this long. Default 75 s. */
  idleTimeoutMs?: number;
  /** A client request body, or the client's reading of a response, that makes no progress for this long ends the exchange. Default 60 s. */
  bodyTimeoutMs?: number;
  /** An upstream response body that makes no progress for this long ends the exchange (NL_UPSTREAM_BODY_TIMEOUT). Default 60 s. */
  upstreamBodyTimeoutMs?: number;
  /** Most intercepted hosts whose certificate / TLS context is kept in memory (least recently used dropped). Default 256 (~34 KiB each). */
  hostCacheSize?: number;
  /** Largest request head accepted from clients, bytes. Default 64 KiB. */
  maxHeaderSize?: number;
  /**
   * Record every read and write on the proxy's sockets (the socket timeline, `log._connections`
   * in a session's HAR; see docs/timings.md). Default true; its cost is measured by bench/timeline-cost.ts.
   */
  timeline?: boolean;
  /** Answer requests from elsewhere than the network (server replay). Default: none, everything is forwarded. */
  respond?: RespondHook;
  /** Rules that mock, rewrite, delay, throttle or break requests (rules/engine.ts); swap `current` to change them live. */
  rules?: import('./rules/engine.js').RulesHolder;
  /** Where `breakpoint` actions park exchanges (rules/breakpoints.ts); one is made per proxy when absent. */
  breakpoints?: import('./rules/breakpoints.js').Breakpoints;
}

export interface ResolvedProxyOptions extends Required<Omit<ProxyOptions, 'upstreamCA' | 'respond' | 'rules' | 'breakpoints'>> {
  upstreamCA: string[];
  respond?: RespondHook;
  rules?: import('./rules/engine.js').RulesHolder;
  breakpoints?: import('./rules/breakpoints.js').Breakpoints;
}

export const DEFAULT_PORT = 8080;
/** A few MiB keeps typical pages whole while bounding memory per exchange. */
export const DEFAULT_BODY_CAPTURE_LIMIT = 4 * 1024 * 1024;

/**
 * The user's data directory for Netlens, following platform conventions:
 * $NETLENS_DATA_DIR, else XDG_DATA_HOME/netlens (Linux), ~/Library/Application Support/Netlens
 * (macOS), %APPDATA%\Netlens (Windows).
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NETLENS_DATA_DIR) return path.resolve(env.NETLENS_DATA_DIR);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Netlens');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Netlens');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'netlens');
}

export function resolveOptions(options: ProxyOptions = {}): ResolvedProxyOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? DEFAULT_PORT,
    intercept: options.intercept ?? true,
    http2: options.http2 ?? true,
    nagle: options.nagle ?? false,
    relay: options.relay ?? 'coalesce',
    dataDir: options.dataDir ? path.resolve(options.dataDir) : defaultDataDir(),
    allowRemoteClients: options.allowRemoteClients ?? false,
    bodyCaptureLimit: options.bodyCaptureLimit ?? DEFAULT_BODY_CAPTURE_LIMIT,
    upstreamCA: options.upstreamCA ?? [],
    insecureUpstream: options.insecureUpstream ?? false,
    retries: options.retries ?? 2,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 60_000,
    maxHeaderSize: options.maxHeaderSize ?? 64 * 1024,
    headerTimeoutMs: options.headerTimeoutMs ?? 60_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 75_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 60_000,
    upstreamBodyTimeoutMs: options.upstreamBodyTimeoutMs ?? 60_000,
    hostCacheSize: options.hostCacheSize ?? DEFAULT_HOST_CACHE_SIZE,
    timeline: options.timeline ?? true,
    respond: options.respond,
    rules: options.rules,
    breakpoints: options.breakpoints,
  };
}
