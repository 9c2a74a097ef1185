/**
 * undici's errors, renamed to the Node codes the rest of Netlens branches on:
 * the retry rule (forward.ts) and classifyUpstreamError (errors.ts) were written
 * for Node's HTTP client and know ECONNRESET, HPE_*, TLS and DNS codes. Socket
 * and TLS errors from connecting (ECONNREFUSED, ENOTFOUND, certificate codes)
 * come from our own dial and pass through unchanged.
 */

import { ErrorCodes } from '../errors.js';

type CodedError = Error & { code?: string };

function renamed(err: CodedError, code: string, message = err.message): CodedError {
  return Object.assign(new Error(message, { cause: err }), { code });
}

/** A response that is not valid HTTP/1.1, recorded as a protocol error (never retried, never "reset"). */
function protocolError(err: CodedError, reason: string): CodedError {
  return renamed(err, ErrorCodes.UPSTREAM_PROTOCOL, reason);
}

/**
 * @param firstStatus the status line undici was reading when it failed (h1-watch.ts), which
 *   names the cause when undici's own error does not (its `bad upgrade`, or an assertion on a 101).
 */
export interface ReadState {
  /** Status of the response head being read (h1-watch.ts). */
  firstStatus?: number;
  /** Whether the final response head had reached the handler. Default true. */
  headReceived?: boolean;
  /** llhttp's error name (HPE_*) read off the parser when it failed (h1-watch.ts). */
  parserError?: string;
}

export function nodeStyleError(err: unknown, state: ReadState = {}): Error {
  const { firstStatus, headReceived = true, parserError } = state;
  const e = (err instanceof Error ? err : new Error(String(err))) as CodedError;
  // undici reports any parse error as a Content-Length mismatch once it has seen a
  // Content-Length (client-h1.js createError checks that first): before the head was
  // complete, that is a head llhttp refused for its framing headers, not a cut-off body.
  if (!headReceived && e.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    const why = 'sent a response head with unusable framing (Content-Length invalid, repeated, or combined with Transfer-Encoding)';
    return protocolError(e, parserError ? `${why}: ${parserError}` : why);
  }
  if (firstStatus === 101 && (e.code === 'ERR_ASSERTION' || e.message === 'bad upgrade')) {
    return protocolError(e, 'answered 101 Switching Protocols to a request that did not ask to switch protocols');
  }
  if (e.code === 'UND_ERR_SOCKET' && (e.message === 'bad response' || e.message === 'bad upgrade')) {
    return protocolError(e, `sent a response undici cannot use (${e.message}${firstStatus ? `, status ${firstStatus}` : ''})`);
  }
  // undici's llhttp parse errors carry the parser's reason in the message but, in undici 7.30,
  // no HPE_* code (it looks the errno up in the wrong table): h1-watch.ts reads it off the parser.
  if (e.name === 'HTTPParserError') {
    const reason = /\((.*)\)$/.exec(e.message)?.[1] ?? e.message;
    return protocolError(e, `sent a response that is not valid HTTP/1.1: ${reason} (${parserError ?? e.code ?? 'llhttp'})`);
  }
  if (e.code === 'ERR_ASSERTION') {
    return protocolError(e, `sent a response the HTTP/1.1 client could not parse${firstStatus ? ` (status ${firstStatus})` : ''}`);
  }
  switch (e.code) {
    // 'other side closed', 'closed', 'bad response', aborted/destroyed by us or by pool.close():
    // the connection ended before a complete response, as Node's ECONNRESET / 'socket hang up'.
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_INFO':
    case 'UND_ERR_ABORTED':
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_CLOSED':
      return renamed(e, 'ECONNRESET');
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      // The origin closed before the body reached its Content-Length: a cut-off response, not bad syntax.
      return renamed(e, 'ECONNRESET', 'the connection closed before the body reached its Content-Length');
    case 'UND_ERR_HEADERS_OVERFLOW':
      return renamed(e, 'HPE_HEADER_OVERFLOW', 'response headers are larger than the HTTP/1.1 client accepts');
    // A request undici will not write (a header value it refuses, a duplicate Host or
    // Content-Length, a body longer or shorter than its Content-Length): say so plainly.
    case 'UND_ERR_INVALID_ARG':
    case 'UND_ERR_NOT_SUPPORTED':
    case 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH':
      return renamed(e, ErrorCodes.REQUEST_NOT_SENDABLE, `the request cannot be sent upstream over HTTP/1.1: ${e.message}`);
    default:
      return e;
  }
}
