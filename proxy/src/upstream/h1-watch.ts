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
 *    sends `100 Continue` to every request became a failed exchange. Interim heads
 *    (every 1xx but 101, which switches protocols) at the start of a response are
 *    dropped here, before undici's parser: Netlens does not forward 1xx anyway, and a
 *    100 after a 103 must go as well. The response-head deadline still bounds a 1xx storm.
 */
import type net from 'node:net';
import { parserErrorName } from './undici-parser.js';

/** An interim head larger than this is not a 100 we strip (undici's parser then judges the bytes). */
const MAX_INTERIM_HEAD = 16 * 1024;
const INTERIM = /^HTTP\/1\.[01] 1\d\d[ \r]/;
const STATUS_LINE = /^HTTP\/(\d\.\d) (\d{3})/;
const PREFIX = 'HTTP/1.1 1';
/** Long enough to judge: "HTTP/1.1 1xx" plus the space or CR after it. */
const JUDGE_AT = 13;

export interface ResponseWatch {
  /** Response bytes undici was given (plus 100 heads dropped) since `expectResponse`. */
  received: number;
  /** Status code of the response head being read (the final one once interim heads are dropped), if any. */
  firstStatus?: number;
  /** The HTTP version ("1.0", "1.1") on that head's status line, if read. */
  firstVersion?: string;
  /** Interim (1xx) heads dropped for the current request. */
  droppedInterim: number;
  /** llhttp's error (e.g. HPE_INVALID_STATUS) when undici's parser failed on this socket. */
  parserError?: string;
  /** Call when a request is about to be written: its response starts with the next byte. */
  expectResponse(): void;
}

const watches = new WeakMap<net.Socket, ResponseWatch>();

/** Whether `text` is, or could still become once more bytes arrive, an interim (1xx, not 101) status line. */
function couldBeInterim(text: string): boolean {
  const n = Math.min(text.length, PREFIX.length);
  for (let i = 0; i < n; i++) {
    if (i === 7) {
      if (text[i] !== '0' && text[i] !== '1') return false;
    } else if (text[i] !== PREFIX[i]) return false;
  }
  if (text.length < JUDGE_AT) return true;
  return INTERIM.test(text) && text.slice(9, 12) !== '101';
}

/** The watch for an upstream HTTP/1.1 socket (installed once per socket). */
export function watchResponses(socket: net.Socket): ResponseWatch {
  const existing = watches.get(socket);
  if (existing) return existing;
  let stripping = false;
  let held: Buffer | null = null;
  const watch: ResponseWatch = {
    received: 0,
    droppedInterim: 0,
    expectResponse() {
      this.received = 0;
      this.parserError = undefined;
      this.firstStatus = undefined;
      this.firstVersion = undefined;
      this.droppedInterim = 0;
      stripping = true;
      held = null;
      headStart = '';
    },
  };
  const read = socket.read;
  /** The first bytes of the head being read, until its status is known (null once it is, or cannot be). */
  let headStart: string | null = '';
  /** Reads the status of the current head from its first bytes, which may come in several chunks. */
  const noteStatus = (bytes: Buffer) => {
    if (headStart === null) return;
    headStart += bytes.subarray(0, 16 - headStart.length).toString('latin1');
    const m = STATUS_LINE.exec(headStart);
    if (m) {
      watch.firstVersion = m[1];
      watch.firstStatus = Number(m[2]);
    }
    if (m || headStart.length >= 16) headStart = null;
  };
  const filter = (chunk: Buffer): Buffer | null => {
    watch.received += chunk.length;
    noteStatus(chunk);
    let data = held ? Buffer.concat([held, chunk]) : chunk;
    held = null;
    if (!stripping) return data;
    for (;;) {
      const start = data.subarray(0, 16).toString('latin1');
      if (!couldBeInterim(start)) {
        stripping = false;
        return data.length ? data : null;
      }
      const end = data.indexOf('\r\n\r\n');
      // Past the bound, whether complete or not, it is not stripped (the same answer however the bytes are chunked).
      if ((end < 0 ? data.length : end) > MAX_INTERIM_HEAD) {
        stripping = false;
        return data;
      }
      if (end < 0) {
        held = data;
        return null;
      }
      watch.droppedInterim++;
      data = data.subarray(end + 4);
      headStart = '';
      noteStatus(data);
      if (data.length === 0) return null;
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
  // undici destroys the socket with the parse error, then frees the parser on 'close': read it in between.
  socket.on('error', () => (watch.parserError ??= parserErrorName(socket)));
  watches.set(socket, watch);
  return watch;
}
