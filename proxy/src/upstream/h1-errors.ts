/**
 * undici's errors, renamed to the Node codes the rest of Netlens branches on:
 * the retry rule (forward.ts) and classifyUpstreamError (errors.ts) were written
 * for Node's HTTP client and know ECONNRESET, HPE_*, TLS and DNS codes. Socket
 * and TLS errors from connecting (ECONNREFUSED, ENOTFOUND, certificate codes)
 * come from our own dial and pass through unchanged.
 */

type CodedError = Error & { code?: string };

function renamed(err: CodedError, code: string, message = err.message): CodedError {
  return Object.assign(new Error(message, { cause: err }), { code });
}

export function nodeStyleError(err: unknown): Error {
  const e = (err instanceof Error ? err : new Error(String(err))) as CodedError;
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
      return renamed(e, 'HPE_UNEXPECTED_CONTENT_LENGTH');
    case 'UND_ERR_HEADERS_OVERFLOW':
      return renamed(e, 'HPE_HEADER_OVERFLOW', 'response headers are larger than the HTTP/1.1 client accepts');
    // A request undici will not write (a header value it refuses, a duplicate Host or
    // Content-Length, a body longer or shorter than its Content-Length): say so plainly.
    case 'UND_ERR_INVALID_ARG':
    case 'UND_ERR_NOT_SUPPORTED':
    case 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH':
      return renamed(e, 'NL_REQUEST_NOT_SENDABLE', `the request cannot be sent upstream over HTTP/1.1: ${e.message}`);
    default:
      return e;
  }
}
