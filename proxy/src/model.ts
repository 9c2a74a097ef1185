/**
 * The data model of the proxy core: plain, serializable types.
 *
 * Everything the proxy sees is described by an `Exchange` (one request and its
 * response). Recorders (HAR), the UI and the lab never reach into the proxy;
 * they subscribe to the `ProxyEvent` stream (see events.ts) and read these types.
 *
 * Clocks: every exchange has ONE wall-clock instant (`startedDateTime`) and
 * otherwise monotonic timestamps in milliseconds (`performance.now()` of the
 * proxy process). Phases are differences of monotonic timestamps, so a wall
 * clock jump (NTP) never makes a phase negative.
 */

/** Headers as they were on the wire: order and case kept, duplicates allowed. */
export type RawHeaders = Array<[name: string, value: string]>;

/** Protocol of one leg as seen on the wire. */
export type HttpProtocol = 'http/1.0' | 'http/1.1' | 'h2';

/**
 * How the exchange reached the proxy:
 *  - `plain`: an absolute-form HTTP request to the proxy (http:// URL);
 *  - `intercepted`: inside a CONNECT whose TLS the proxy terminated;
 *  - `tunnel`: a blind CONNECT tunnel (the exchange describes the tunnel itself);
 *  - `connect-plain`: cleartext HTTP inside a CONNECT tunnel (e.g. ws:// via CONNECT).
 */
export type Transport = 'plain' | 'intercepted' | 'tunnel' | 'connect-plain';

/** A captured body. `bytes` holds at most the configured capture limit. */
export interface BodyCapture {
  /** Bytes seen on the wire (after transfer decoding, before content decoding). */
  size: number;
  /** The first `bytes.length` bytes of the body, as sent (still content-encoded). */
  bytes: Uint8Array;
  /** True when `size > bytes.length` because of the capture limit. */
  truncated: boolean;
}

/**
 * Monotonic timestamps (ms, performance.now()) of the exchange's lifecycle.
 * Upstream-leg steps are undefined when they did not happen (e.g. dns/connect/tls
 * on a reused keep-alive connection).
 */
export interface ExchangeTimestamps {
  /** Client request head parsed by the proxy. */
  start: number;
  /** Client request body fully received. */
  clientRequestEnd?: number;
  /** An upstream socket / h2 stream was obtained (end of "blocked"). */
  upstreamAssigned?: number;
  /** The upstream connection this request went on began to be dialled (its setup timestamps follow). */
  dialStart?: number;
  /** DNS lookup finished on a new upstream connection. */
  dnsEnd?: number;
  /** TCP connected on a new upstream connection. */
  connectEnd?: number;
  /** TLS handshake finished on a new upstream connection. */
  tlsEnd?: number;
  /** Request (head and body) fully written upstream. */
  requestSent?: number;
  /** Upstream response head received. */
  responseHeaders?: number;
  /** Upstream response body fully received. */
  responseEnd?: number;
  /** Response head written to the client. */
  clientResponseHeaders?: number;
  /** Response fully written to the client. */
  clientResponseEnd?: number;
}

/**
 * HAR 1.2 phases in ms, measured on the upstream leg. -1 = not applicable.
 * `ssl` is included in `connect` (HAR 1.2 rule). `total` is the sum of the
 * non-negative phases excluding `ssl` (it is inside `connect`).
 */
export interface Timings {
  blocked: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  wait: number;
  receive: number;
  total: number;
}

/** The same phases measured on the client leg (browser ↔ proxy). */
export interface ClientTimings {
  /** Request body received from the client. */
  receiveRequest: number;
  /** Proxy overhead: from request head to upstream request sent, minus upstream phases. */
  proxyOverhead: number;
  /** Response head written to the client after it arrived from upstream. */
  respond: number;
  /** Whole client-leg time, head parsed → response fully written. */
  total: number;
}

export interface ExchangeError {
  /** Stable code: see errors.ts (e.g. `NL_UPSTREAM_REFUSED`). */
  code: string;
  message: string;
  /** Which side failed. */
  side: 'client' | 'upstream' | 'proxy';
}

export interface RequestRecord {
  method: string;
  /** Absolute URL (scheme://host[:port]/path?query). */
  url: string;
  /** Client-leg protocol version. */
  httpVersion: HttpProtocol;
  headers: RawHeaders;
  body: BodyCapture;
}

export interface ResponseRecord {
  status: number;
  statusText: string;
  /** Upstream-leg protocol version. */
  httpVersion: HttpProtocol;
  headers: RawHeaders;
  body: BodyCapture;
}

export interface Exchange {
  /** Unique within the proxy's lifetime, e.g. `x17`. */
  id: string;
  /** Client connection id (browser ↔ proxy TCP connection), e.g. `c3`. */
  clientConnectionId: string;
  /** Upstream connection id (proxy ↔ origin), shared by exchanges on one connection; HAR `connection`. */
  upstreamConnectionId?: string;
  /** Wall clock of `timestamps.start`, ISO 8601. */
  startedDateTime: string;
  transport: Transport;
  clientProtocol: HttpProtocol;
  upstreamProtocol?: HttpProtocol;
  /** Whether Nagle's algorithm was left on for this exchange's sockets. */
  nagle: boolean;
  request: RequestRecord;
  /** Absent when no response arrived (see `error`). */
  response?: ResponseRecord;
  /** IP address of the upstream server (no brackets for IPv6). */
  serverIPAddress?: string;
  /** True when the upstream connection was new for this exchange. */
  upstreamConnectionNew?: boolean;
  /** Number of retries the proxy made to the upstream. */
  retries: number;
  /** Set for tunnels: bytes client→server and server→client. */
  tunnelBytes?: { up: number; down: number };
  /** Set for WebSocket upgrades that were passed through. */
  websocket?: boolean;
  timestamps: ExchangeTimestamps;
  timings: Timings;
  clientTimings: ClientTimings;
  error?: ExchangeError;
  /**
   * Server replay only (absent otherwise): true when the response came from the
   * recording, false when the replaying proxy found no recorded match (the
   * request was then forwarded, answered 404 or killed, as configured).
   */
  replayed?: boolean;
  /** The rules that touched this exchange (rules/engine.ts), in the order they matched. */
  rules?: RuleHit[];
  /** True when a rule answered instead of the network (a mock). */
  mocked?: boolean;
  /** A breakpoint paused it (rules/breakpoints.ts): how long in all, whether the user edited it, how the last pause ended. */
  breakpoint?: { pausedMs: number; edited: boolean; outcome: string };
}

/** What is known about an exchange when its request head arrives. */
export interface ExchangeStart {
  id: string;
  clientConnectionId: string;
  startedDateTime: string;
  transport: Transport;
  clientProtocol: HttpProtocol;
  method: string;
  url: string;
  headers: RawHeaders;
  timestamps: Pick<ExchangeTimestamps, 'start'>;
}

/** What is known when the upstream response head arrives. */
export interface ExchangeResponseHead {
  id: string;
  status: number;
  statusText: string;
  httpVersion: HttpProtocol;
  headers: RawHeaders;
  upstreamConnectionId?: string;
  serverIPAddress?: string;
  at: number;
}

/**
 * The proxy's one event stream. Every lifecycle step of every exchange, in order:
 * `request` → (`response`) → `complete` | `error`.
 * `complete` and `error` carry the whole, final Exchange.
 */
export type ProxyEvent =
  | { type: 'request'; exchange: ExchangeStart }
  | { type: 'response'; response: ExchangeResponseHead }
  | { type: 'complete'; exchange: Exchange }
  | { type: 'error'; exchange: Exchange }
  | { type: 'listening'; address: ProxyAddress }
  | { type: 'closed' };

export interface ProxyAddress {
  host: string;
  port: number;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
}

export interface ProxySettings {
  host: string;
  port: number;
  intercept: boolean;
  http2: boolean;
  nagle: boolean;
  dataDir: string;
}

/** One rule that touched an exchange (rules/engine.ts): its id, name and the actions it applied. */
export interface RuleHit {
  id: string;
  name?: string;
  actions: string[];
  /** What the rule could not do to this exchange, e.g. a body rewrite skipped over the size cap. */
  note?: string;
}
