/**
 * Errors with stable codes. Callers branch on `code`; users read `message`,
 * which says what happened and what to do about it.
 */
export const ErrorCodes = {
  /** Upstream refused the TCP connection. */
  UPSTREAM_REFUSED: 'NL_UPSTREAM_REFUSED',
  /** Upstream reset the connection or closed it before a full response. */
  UPSTREAM_RESET: 'NL_UPSTREAM_RESET',
  /** Upstream host name did not resolve. */
  UPSTREAM_DNS: 'NL_UPSTREAM_DNS',
  /** Upstream did not answer in time. */
  UPSTREAM_TIMEOUT: 'NL_UPSTREAM_TIMEOUT',
  /** Upstream sent part of a response body, then nothing for `upstreamBodyTimeoutMs`: the client's stream is closed. */
  UPSTREAM_BODY_TIMEOUT: 'NL_UPSTREAM_BODY_TIMEOUT',
  /** Upstream TLS failed (certificate not trusted, handshake error). */
  UPSTREAM_TLS: 'NL_UPSTREAM_TLS',
  /** Upstream spoke something that is not valid HTTP. */
  UPSTREAM_PROTOCOL: 'NL_UPSTREAM_PROTOCOL',
  /** Internal to the forwarder (retried): an origin that offered HTTP/2 answered a new connection with HTTP/1.1 only. */
  H2_DOWNGRADE: 'NL_H2_DOWNGRADE',
  /** Internal to the forwarder (retried): the origin refused an HTTP/2 stream (REFUSED_STREAM) before processing it. */
  H2_REFUSED_STREAM: 'NL_H2_REFUSED_STREAM',
  /** A request the HTTP/1.1 upstream client will not write (a header value it refuses, a body that disagrees with Content-Length). */
  REQUEST_NOT_SENDABLE: 'NL_REQUEST_NOT_SENDABLE',
  /** The client went away before the exchange finished. */
  CLIENT_ABORTED: 'NL_CLIENT_ABORTED',
  /**
   * The client was too slow: no complete request head within `headerTimeoutMs` (or no TLS
   * handshake inside a tunnel), or its request body / reading of the response stalled for `bodyTimeoutMs`.
   */
  CLIENT_TIMEOUT: 'NL_CLIENT_TIMEOUT',
  /** The client sent something that is not valid HTTP. */
  CLIENT_MALFORMED: 'NL_CLIENT_MALFORMED',
  /** The TLS handshake with the client failed inside a tunnel (usually: the client does not trust the Netlens CA). */
  CLIENT_TLS: 'NL_CLIENT_TLS',
  /** The client's request head is over a limit (bytes or header lines): answered 431. */
  REQUEST_HEADERS_TOO_LARGE: 'NL_REQUEST_HEADERS_TOO_LARGE',
  /** A request the proxy will not forward (e.g. open relay attempt, loop). */
  REQUEST_REFUSED: 'NL_REQUEST_REFUSED',
  /** A client that is not on loopback tried to use the proxy. */
  NOT_LOOPBACK: 'NL_NOT_LOOPBACK',
  /** The proxy port is taken. */
  PORT_IN_USE: 'NL_PORT_IN_USE',
  /** The proxy cannot bind the address it was given. */
  LISTEN_FAILED: 'NL_LISTEN_FAILED',
  /** The data directory / CA files cannot be read or written. */
  CA_STORE: 'NL_CA_STORE',
  /**
   * The CA directory holds one CA file but not the other (key without certificate or the
   * reverse): Netlens refuses to replace a CA clients may trust. Restore the file or delete the directory.
   */
  CA_INCOMPLETE: 'NL_CA_INCOMPLETE',
  /**
   * An upstream CA file given in Settings or with --upstream-ca cannot be used: missing, not a file,
   * too large, or not a PEM certificate. The message names the file.
   */
  UPSTREAM_CA_FILE: 'NL_UPSTREAM_CA_FILE',
  /** Bad option or CLI usage. */
  USAGE: 'NL_USAGE',
  /** Unexpected internal failure (a bug: please report it). */
  INTERNAL: 'NL_INTERNAL',
  /** API (netlens serve): the request lacks the per-launch token or carries a wrong one. */
  API_UNAUTHORIZED: 'NL_API_UNAUTHORIZED',
  /** API: a cross-origin request or a foreign Host header (DNS rebinding) was refused. */
  API_FORBIDDEN: 'NL_API_FORBIDDEN',
  /** API: malformed command, unknown command or bad arguments. */
  API_BAD_REQUEST: 'NL_API_BAD_REQUEST',
  /** UI: the core did not answer (netlens serve stopped, or the Electron main process is gone). */
  API_UNREACHABLE: 'NL_API_UNREACHABLE',
  /** UI: the core answered something that is not a command reply. */
  API_BAD_RESPONSE: 'NL_API_BAD_RESPONSE',
  /** Warning code: an event listener threw; the event still reached the other listeners. */
  LISTENER_FAILED: 'NL_LISTENER_FAILED',
  /** API: the exchange / session / lab run asked for does not exist (any more). */
  NOT_FOUND: 'NL_NOT_FOUND',
  /** API: an optional part of the core (lab, browser launch, replay...) is not installed in this build. */
  FEATURE_UNAVAILABLE: 'NL_FEATURE_UNAVAILABLE',
  /** No Chrome/Chromium executable was found (set CHROME_PATH or install one). */
  BROWSER_NOT_FOUND: 'NL_BROWSER_NOT_FOUND',
  /** "Launch browser" with no page to load on a machine without a display: a headless Chrome would be invisible and useless. */
  BROWSER_NO_DISPLAY: 'NL_BROWSER_NO_DISPLAY',
  /** Chrome started but did not open its DevTools port, or exited early. */
  BROWSER_LAUNCH: 'NL_BROWSER_LAUNCH',
  /** A page load failed in the browser, timed out, or gave a HAR with fewer entries than the page has. */
  PAGE_LOAD: 'NL_PAGE_LOAD',
  /** A lab run was cancelled (AbortSignal / Ctrl-C). */
  LAB_ABORTED: 'NL_LAB_ABORTED',
  /** Warning code: a lab child process (proxy, browser) did not close in time and was killed. */
  LAB_CHILD_KILLED: 'NL_LAB_CHILD_KILLED',
  /**
   * Lab: an external proxy of a via cell could not be used: connection refused, not an
   * HTTP proxy, CONNECT refused, TLS to the target through it failed, or no answer in time.
   */
  LAB_VIA_PROXY: 'NL_LAB_VIA_PROXY',
  /**
   * A lab results.json cannot be used: missing, not JSON (cut short by a crash), another
   * schemaVersion, or without the fields a report needs. The message names the file and the field.
   */
  LAB_RESULT_INVALID: 'NL_LAB_RESULT_INVALID',
  /** A HAR file cannot be used (not JSON, truncated, no log.entries, an entry without request/response). */
  HAR_INVALID: 'NL_HAR_INVALID',
  /** The session store (data dir sessions/: index, HAR files, journals) cannot be read or written. */
  SESSION_STORE: 'NL_SESSION_STORE',
  /** Rename to a name another session already has: names are unique so commands can take a name instead of an id. */
  SESSION_NAME_TAKEN: 'NL_SESSION_NAME_TAKEN',
  /** Server replay: no recorded response matched and the policy is `kill` (connection closed). */
  REPLAY_UNMATCHED: 'NL_REPLAY_UNMATCHED',
  /** Sessions -> Serve while a replay server already runs: one at a time; stop it first. */
  REPLAY_RUNNING: 'NL_REPLAY_RUNNING',
  /** Stop asked while no replay server runs. */
  REPLAY_NOT_RUNNING: 'NL_REPLAY_NOT_RUNNING',
  /** A HAR cannot be replayed: no entry has a usable request and response (e.g. every request failed). */
  REPLAY_NO_RESPONSES: 'NL_REPLAY_NO_RESPONSES',
  /** A rules file does not validate: the message names each rule (id, name) and field that is wrong. */
  RULES_INVALID: 'NL_RULES_INVALID',
  /** A rules file (or a mock's bodyFile) cannot be read: missing, not a file, not JSON. The message names the file. */
  RULES_FILE: 'NL_RULES_FILE',
  /** A rule's fault action broke this exchange on purpose (close, reset, timeout, truncate): recorded, not a network failure. */
  RULE_FAULT: 'NL_RULE_FAULT',
  /** The user aborted an exchange paused by a breakpoint: the client got a 502 (or its connection closed). */
  BREAKPOINT_ABORTED: 'NL_BREAKPOINT_ABORTED',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const registered: ReadonlySet<string> = new Set(Object.values(ErrorCodes));

/** Whether `value` is a registered code: the only codes a caller may branch on. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && registered.has(value);
}

export class NetlensError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NetlensError';
    this.code = code;
  }
}

/** What a caller is told of a failure: a registered code and the user's message. Never a stack. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/** An `ErrorInfo` that crossed a boundary as plain data (IPC, JSON, a child process). */
export function isErrorInfo(value: unknown): value is ErrorInfo {
  const v = value as { code?: unknown; message?: unknown } | null | undefined;
  return typeof v === 'object' && v !== null && isErrorCode(v.code) && typeof v.message === 'string';
}

/**
 * The registered code of a thrown value, else `fallback`. A NetlensError carries its own;
 * other values count only with a registered `code` (errors tagged with Object.assign below
 * the API, error infos that crossed a process boundary). Unregistered codes, Node's
 * (ECONNRESET) included, are not ours: they get the fallback.
 */
export function errorCodeOf(err: unknown, fallback: ErrorCode = ErrorCodes.INTERNAL): ErrorCode {
  if (err instanceof NetlensError) return err.code;
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return isErrorCode(code) ? code : fallback;
}

/** The one mapping of a thrown value to what the user is told: a code (NL_INTERNAL when it is not ours) and a message. */
export function toErrorInfo(err: unknown, fallback: ErrorCode = ErrorCodes.INTERNAL): ErrorInfo {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return { code: errorCodeOf(err, fallback), message: typeof message === 'string' && message ? message : String(err) };
}

/**
 * Whether an upstream failure will happen again on retry: the origin refused the
 * connection (after the forwarder's own retries), its name does not exist, or TLS to
 * it failed (certificate verification, no common protocol). Such failures are answered
 * with a 502 naming the cause (server/bad-gateway.ts) so the user learns why; every other
 * failure (resets, timeouts, protocol errors, EAI_AGAIN's temporary DNS failure) closes
 * the client's connection or stream, which browsers retry.
 */
export function isPermanentUpstreamFailure(err: unknown): boolean {
  const sys = (err as NodeJS.ErrnoException)?.code ?? '';
  if (sys === 'ECONNREFUSED' || sys === 'ENOTFOUND') return true;
  return classifyUpstreamError(err, '').code === ErrorCodes.UPSTREAM_TLS;
}

/** Maps a Node socket/HTTP error to a stable upstream error code and a readable message. */
export function classifyUpstreamError(err: unknown, target: string): { code: ErrorCode; message: string } {
  const e = err as NodeJS.ErrnoException & { reason?: string };
  const sys = e?.code ?? '';
  switch (sys) {
    case 'ECONNREFUSED':
      return { code: ErrorCodes.UPSTREAM_REFUSED, message: `${target} refused the connection (is the server running?)` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { code: ErrorCodes.UPSTREAM_DNS, message: `${target}: host name did not resolve (check the URL or your DNS)` };
    case 'ETIMEDOUT':
    case ErrorCodes.UPSTREAM_TIMEOUT:
      return { code: ErrorCodes.UPSTREAM_TIMEOUT, message: `${target} did not answer in time` };
    case ErrorCodes.UPSTREAM_BODY_TIMEOUT:
      return {
        code: ErrorCodes.UPSTREAM_BODY_TIMEOUT,
        message: `${target} stopped sending the response body (${e.message}); the client's connection was closed`,
      };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ERR_HTTP2_STREAM_ERROR':
    case 'ERR_HTTP2_SESSION_ERROR':
    case 'ERR_HTTP2_GOAWAY_SESSION':
    case ErrorCodes.H2_REFUSED_STREAM:
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return { code: ErrorCodes.UPSTREAM_RESET, message: `${target} closed the connection before a complete response (${e.message})` };
    case ErrorCodes.UPSTREAM_PROTOCOL:
      return { code: ErrorCodes.UPSTREAM_PROTOCOL, message: `${target} ${e.message}` };
    case ErrorCodes.RULE_FAULT:
      // A rule broke the exchange on purpose (rules/apply-response.ts, e.g. fault: truncate): say so, not "reset".
      return { code: ErrorCodes.RULE_FAULT, message: e.message };
    case 'ERR_HTTP2_ERROR':
    case 'ERR_HTTP2_PROTOCOL_ERROR':
    case 'ERR_HTTP2_INVALID_HEADER_VALUE':
    case 'ERR_HTTP2_INVALID_INFO_STATUS':
    case 'ERR_HTTP2_STATUS_INVALID':
      return { code: ErrorCodes.UPSTREAM_PROTOCOL, message: `${target} sent an invalid HTTP/2 response (${e.message})` };
    default:
      // llhttp's parse errors (HPE_INVALID_STATUS, HPE_INVALID_CHUNK_SIZE, HPE_UNEXPECTED_CONTENT_LENGTH, ...):
      // the origin answered, but not in HTTP. The parser's reason tells the user which rule it broke.
      if (sys.startsWith('HPE_')) {
        return { code: ErrorCodes.UPSTREAM_PROTOCOL, message: `${target} sent an invalid HTTP response: ${sys} (${e.message})` };
      }
      if (
        sys.startsWith('ERR_TLS') ||
        sys.startsWith('ERR_SSL') ||
        /certificate|self.signed|SSL|TLS/i.test(e?.message ?? '') ||
        sys.includes('CERT')
      ) {
        return {
          code: ErrorCodes.UPSTREAM_TLS,
          message: `TLS to ${target} failed: ${e?.message ?? sys}. If the origin uses a private CA, start the proxy with --upstream-ca FILE (or --insecure for testing only).`,
        };
      }
      if (e?.message === 'socket hang up') {
        return { code: ErrorCodes.UPSTREAM_RESET, message: `${target} closed the connection without a response` };
      }
      return { code: ErrorCodes.UPSTREAM_RESET, message: `${target}: ${e?.message ?? String(err)}` };
  }
}
