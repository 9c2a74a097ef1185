/**
 * The answer to bytes Node's HTTP/1 parser refuses ('clientError' on every HTTP/1
 * listener: plain, inside CONNECT, intercepted TLS), so one limit gives one answer on
 * every path, without misattributing it.
 *
 * Node's parser reports the error as soon as it reads the bad bytes, while requests it
 * parsed earlier on the same connection (pipelined, or a request followed by garbage
 * or by data after `Connection: close`) are still being forwarded. Writing the 400 at
 * once puts it where the client expects the answer to the earlier request, which the
 * origin did receive: the client would believe it failed. So the refusal waits until
 * every response already under way on the connection is written, then follows them.
 * Only requests Node parsed completely count: a request whose own body is malformed
 * (or cut short by the client's FIN) is the one the 400 answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { LinkedList } from '../linked-list.js';

interface ConnectionState {
  /** Requests whose responses have not ended yet, with their responses (a list, not a Map: see linked-list.ts). */
  inflight: LinkedList<{ req: IncomingMessage; res: ServerResponse }>;
  /** Set when a refusal is pending: the requests it waits for. */
  awaited?: Set<IncomingMessage>;
  /** The refusal to send once nothing is in flight. */
  refusal?: string;
  sent?: boolean;
}

const states = new WeakMap<Duplex, ConnectionState>();

function stateOf(socket: Duplex): ConnectionState {
  let s = states.get(socket);
  if (!s) states.set(socket, (s = { inflight: new LinkedList() }));
  return s;
}

function send(socket: Duplex, s: ConnectionState): void {
  s.sent = true;
  if (socket.writable) socket.end(s.refusal || undefined);
  else socket.destroy();
}

/** Counts an HTTP/1 request as in flight on its connection until its response ends. */
export function trackClientRequest(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  if (!socket) return;
  const s = stateOf(socket);
  const node = s.inflight.push({ req, res });
  const settle = () => {
    s.inflight.remove(node);
    if (s.awaited?.delete(req) && s.awaited.size === 0 && !s.sent) send(socket, s);
  };
  res.once('finish', settle);
  res.once('close', settle);
}

/**
 * A request line that is well formed but names another major version (HTTP/2.0, HTTP/3.0,
 * the HTTP/2 preface `PRI * HTTP/2.0`): RFC 9110 §15.6.6's 505. Anything else llhttp calls
 * an invalid version (HTTP/1.2, a trailing space, a bare LF) is malformed: 400, as Node says.
 */
const OTHER_MAJOR_VERSION = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/([02-9])\.\d\r\n/;

/** Status for a parser error code (llhttp's HPE_*, or Node's own), as Node's default clientError handler maps them, plus 505. */
export function clientErrorStatus(code: string | undefined, rawPacket?: Buffer): string {
  if (code === 'HPE_INVALID_VERSION') {
    const head = rawPacket?.subarray(0, 8192).toString('latin1') ?? '';
    return OTHER_MAJOR_VERSION.test(head) ? '505 HTTP Version Not Supported' : '400 Bad Request';
  }
  switch (code) {
    // The HTTP/2 connection preface ("PRI * HTTP/2.0") on an HTTP/1 listener: h2 needs TLS ALPN here.
    case 'HPE_PAUSED_H2_UPGRADE':
      return '505 HTTP Version Not Supported';
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return '413 Payload Too Large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return '408 Request Timeout';
    default:
      return '400 Bad Request';
  }
}

/** The 'clientError' listener for every HTTP/1 server of the proxy: a status and a line of why, then close. */
export function answerClientError(maxHeaderSize: number) {
  return (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void => {
    const s = stateOf(socket);
    if (s.refusal !== undefined) {
      // Called again (more bad bytes, or the client's FIN): once answered, let go of the socket.
      if (s.sent && !socket.writable) socket.destroy();
      return;
    }
    // ECONNRESET and friends: the client is gone, there is no one to answer.
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(err.code, err.rawPacket);
    const why =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? `request head larger than ${maxHeaderSize} bytes`
        : `malformed request (${err.code ?? err.message})`;
    s.refusal = `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nNetlens: ${why}\n`;
    // The request the bad bytes belong to (not parsed completely) may already have its
    // answer from the handler (e.g. a 400 for its Transfer-Encoding): a second one would
    // answer nothing. Close once the responses under way are written instead.
    const inflight = s.inflight.values();
    const answered = inflight.filter(({ req, res }) => !req.complete && res.headersSent).map(({ req }) => req);
    if (answered.length) s.refusal = '';
    s.awaited = new Set([...inflight.filter(({ req }) => req.complete).map(({ req }) => req), ...answered]);
    if (s.awaited.size === 0) send(socket, s);
  };
}
