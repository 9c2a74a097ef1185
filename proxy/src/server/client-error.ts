/**
 * The answer to a request Node's HTTP/1 parser refused before any handler saw it
 * (server 'clientError'): the same on every HTTP/1 listener (plain, inside CONNECT,
 * intercepted TLS), so one limit gives one answer on every path.
 */
import type { Duplex } from 'node:stream';

/** Status for a parser error code (llhttp's HPE_*, or Node's own). */
export function clientErrorStatus(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'HPE_INVALID_VERSION':
      return '505 HTTP Version Not Supported';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return '408 Request Timeout';
    default:
      return '400 Bad Request';
  }
}

/** A 'clientError' listener: answers with a status and a line of why, then closes; a dead socket is just destroyed. */
export function answerClientError(maxHeaderSize: number) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    // ECONNRESET and friends: the client is gone, there is no one to answer.
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(err.code);
    const why = err.code === 'HPE_HEADER_OVERFLOW' ? `request head larger than ${maxHeaderSize} bytes` : `malformed request (${err.code ?? err.message})`;
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nNetlens: ${why}\n`);
  };
}
