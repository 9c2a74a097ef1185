/**
 * What undici reads from an upstream HTTP/1.1 socket, seen before undici sees it.
 *
 * Two jobs, both on the bytes undici pulls with `socket.read()` (its only way of
 * reading a connection's data):
 *
 * 1. Knowing whether the origin answered at all. A request whose origin has sent
 *    even one byte of a response must never be retried (the origin acted on it);
 *    a request on a keep-alive socket the origin had already closed may be. The
 *    socket's own `bytesRead` cannot tell these apart: TLS 1.3 session tickets
 *    arrive after the handshake and count there.
 * 2. `100 Continue` before the final response. RFC 9110 §15.2: a client MUST be
 *    able to parse 1xx responses it did not expect. undici 7 (client-h1.js,
 *    onHeadersComplete) destroys the socket on any 100 instead, so an origin that
 *    sends `100 Continue` to every request became a failed exchange. Other 1xx
 *    (103 Early Hints, 102) undici skips itself. Interim 100 heads at the start of
 *    a response are dropped here, before undici's parser.
 */
import type net from 'node:net';

/** An interim head larger than this is not a 100 we strip (undici's parser then judges the bytes). */
const MAX_INTERIM_HEAD = 16 * 1024;
const STATUS_100 = /^HTTP\/1\.[01] 100[ \r]/;
const STATUS_LINE = /^HTTP\/\d\.\d (\d{3})/;
const PREFIX = 'HTTP/1.1 100 ';

export interface ResponseWatch {
  /** Response bytes undici was given (plus 100 heads dropped) since `expectResponse`. */
  received: number;
  /** Status code of the first response head seen since `expectResponse` (100s included), if any. */
  firstStatus?: number;
  /** Interim 100 heads dropped for the current request. */
  dropped100: number;
  /** Call when a request is about to be written: its response starts with the next byte. */
  expectResponse(): void;
}

const watches = new WeakMap<net.Socket, ResponseWatch>();

/** Whether `text` could still become a `100` status line once more bytes arrive. */
function couldBe100(text: string): boolean {
  const n = Math.min(text.length, PREFIX.length);
  for (let i = 0; i < n; i++) {
    if (i === 7) {
      if (text[i] !== '0' && text[i] !== '1') return false;
    } else if (text[i] !== PREFIX[i]) return false;
  }
  return text.length < PREFIX.length || STATUS_100.test(text);
}

/** The watch for an upstream HTTP/1.1 socket (installed once per socket). */
export function watchResponses(socket: net.Socket): ResponseWatch {
  const existing = watches.get(socket);
  if (existing) return existing;
  let stripping = false;
  let held: Buffer | null = null;
  const watch: ResponseWatch = {
    received: 0,
    dropped100: 0,
    expectResponse() {
      this.received = 0;
      this.firstStatus = undefined;
      this.dropped100 = 0;
      stripping = true;
      held = null;
    },
  };
  const read = socket.read;
  const filter = (chunk: Buffer): Buffer | null => {
    watch.received += chunk.length;
    if (watch.firstStatus === undefined) {
      const m = STATUS_LINE.exec(chunk.subarray(0, 16).toString('latin1'));
      if (m) watch.firstStatus = Number(m[1]);
    }
    if (!stripping) return chunk;
    let data = held ? Buffer.concat([held, chunk]) : chunk;
    held = null;
    for (;;) {
      const start = data.subarray(0, 16).toString('latin1');
      if (!couldBe100(start)) {
        stripping = false;
        return data.length ? data : null;
      }
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        if (data.length > MAX_INTERIM_HEAD) {
          stripping = false;
          return data;
        }
        held = data;
        return null;
      }
      watch.dropped100++;
      data = data.subarray(end + 4);
      if (data.length === 0) return null;
      const m = STATUS_LINE.exec(data.subarray(0, 16).toString('latin1'));
      if (m && Number(m[1]) !== 100) watch.firstStatus = Number(m[1]);
    }
  };
  // undici's parser pulls every byte through read(); a chunk that was all interim
  // head reads as "nothing yet" and the next 'readable' brings the rest.
  socket.read = function (this: net.Socket, size?: number) {
    for (;;) {
      const chunk = read.call(this, size) as Buffer | string | null;
      if (chunk === null || typeof chunk === 'string') return chunk;
      const out = filter(chunk);
      if (out !== null) return out;
      if (this.readableLength === 0) return null;
    }
  } as typeof socket.read;
  watches.set(socket, watch);
  return watch;
}
