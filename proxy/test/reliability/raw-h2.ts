/**
 * A raw HTTP/2 client for the smuggling corpus: it writes frames itself (HPACK
 * literals without indexing, no Huffman), so it can send what node:http2 refuses to
 * (Transfer-Encoding, CR/LF in values, upper-case names, pseudo-header abuse, a
 * content-length that disagrees with the DATA). It reads back, per stream, whether a
 * response HEADERS frame (and its :status when the encoding allows) or a RST_STREAM came.
 */
import type { Duplex } from 'node:stream';

export type H2Header = [string, string];

export interface H2Stream {
  headers: H2Header[];
  /** DATA payloads; the last one carries END_STREAM (none: END_STREAM on HEADERS). */
  data?: string[];
  /** RST_STREAM with this error code, sent after every stream's frames but in the same write (one read on the server). */
  reset?: number;
}

export interface H2StreamResult {
  id: number;
  /** :status of the response, 0 when answered with a status this client cannot decode. */
  status?: number;
  rst?: number;
}

const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;
export const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream & 0x7fffffff, 5);
  return Buffer.concat([h, payload]);
}

/** HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function hpackInt(n: number, prefixBits: number, first: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (n < max) return [first | n];
  const out = [first | max];
  n -= max;
  while (n >= 128) {
    out.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** Literal header field without indexing, new name, raw strings (RFC 7541 §6.2.2). */
export function hpackEncode(headers: H2Header[]): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of headers) {
    const name = Buffer.from(k, 'latin1');
    const value = Buffer.from(v, 'latin1');
    parts.push(Buffer.from([0x00, ...hpackInt(name.length, 7, 0)]), name, Buffer.from(hpackInt(value.length, 7, 0)), value);
  }
  return Buffer.concat(parts);
}

// HPACK Huffman codes of the digits (RFC 7541 Appendix B), enough to read a :status.
const DIGIT_CODES: [string, string][] = [
  ['00000', '0'],
  ['00001', '1'],
  ['00010', '2'],
  ['011001', '3'],
  ['011010', '4'],
  ['011011', '5'],
  ['011100', '6'],
  ['011101', '7'],
  ['011110', '8'],
  ['011111', '9'],
];

function huffmanDigits(buf: Buffer): string | undefined {
  let bits = '';
  for (const b of buf) bits += b.toString(2).padStart(8, '0');
  let out = '';
  while (out.length < 3) {
    const hit = DIGIT_CODES.find(([code]) => bits.startsWith(code));
    if (!hit) return undefined;
    out += hit[1];
    bits = bits.slice(hit[0].length);
  }
  return out;
}

/** The :status of a response header block when it is the first field (as nghttp2 writes it). */
export function statusOf(block: Buffer): number {
  const b = block[0] ?? 0;
  const STATIC: Record<number, number> = { 0x88: 200, 0x89: 204, 0x8a: 206, 0x8b: 304, 0x8c: 400, 0x8d: 404, 0x8e: 500 };
  if (STATIC[b]) return STATIC[b]!;
  // Literal with name index 8 (:status), with or without indexing.
  if (b === 0x48 || b === 0x08 || b === 0x18) {
    const len = block[1]! & 0x7f;
    const raw = block.subarray(2, 2 + len);
    const text = block[1]! & 0x80 ? huffmanDigits(raw) : raw.toString('latin1');
    return Number(text) || 0;
  }
  return 0;
}

export interface H2Outcome {
  streams: H2StreamResult[];
  goaway?: number;
  /** The server closed the connection by itself. */
  serverClosed: boolean;
  hung: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The preface, an empty SETTINGS and `streams` (ids 1, 3, 5, …; then their resets), as one buffer for one write. */
export function clientFrames(streams: H2Stream[]): Buffer {
  const out: Buffer[] = [Buffer.from(PREFACE, 'latin1'), frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(0))];
  streams.forEach((s, i) => {
    const id = 1 + 2 * i;
    const data = s.data ?? [];
    out.push(frame(FRAME.HEADERS, 0x4 | (data.length ? 0 : 0x1), id, hpackEncode(s.headers)));
    data.forEach((d, j) => out.push(frame(FRAME.DATA, j === data.length - 1 ? 0x1 : 0, id, Buffer.from(d, 'latin1'))));
  });
  streams.forEach((s, i) => {
    if (s.reset === undefined) return;
    const code = Buffer.alloc(4);
    code.writeUInt32BE(s.reset);
    out.push(frame(FRAME.RST_STREAM, 0, 1 + 2 * i, code));
  });
  return Buffer.concat(out);
}

/** Sends the preface and `streams` (ids 1, 3, 5, …) on `socket`, then reads until quiet, GOAWAY+FIN, checks the close. */
export async function rawH2Exchange(
  socket: Duplex,
  streams: H2Stream[],
  opts: { quietMs?: number; finWaitMs?: number } = {},
): Promise<H2Outcome> {
  const { quietMs = 400, finWaitMs = 5_000 } = opts;
  const results = new Map<number, H2StreamResult>();
  let goaway: number | undefined;
  let buf = Buffer.alloc(0);
  let last: number; // the time of the latest frame; starts when ours are sent
  let ended = false;
  let closed = false;
  socket.on('data', (c: Buffer) => {
    last = Date.now();
    buf = Buffer.concat([buf, c]);
    while (buf.length >= 9) {
      const len = buf.readUIntBE(0, 3);
      if (buf.length < 9 + len) break;
      const type = buf[3]!;
      const flags = buf[4]!;
      const id = buf.readUInt32BE(5) & 0x7fffffff;
      const payload = buf.subarray(9, 9 + len);
      buf = buf.subarray(9 + len);
      const r = results.get(id) ?? { id };
      if (type === FRAME.HEADERS && r.status === undefined) {
        const pad = flags & 0x8 ? 1 : 0;
        const prio = flags & 0x20 ? 5 : 0;
        r.status = statusOf(payload.subarray(pad + prio));
        results.set(id, r);
      } else if (type === FRAME.RST_STREAM) {
        r.rst = payload.readUInt32BE(0);
        results.set(id, r);
      } else if (type === FRAME.GOAWAY) {
        goaway = payload.readUInt32BE(4);
      } else if (type === FRAME.SETTINGS && !(flags & 1)) {
        socket.write(frame(FRAME.SETTINGS, 1, 0, Buffer.alloc(0)));
      } else if (type === FRAME.PING && !(flags & 1)) {
        socket.write(frame(FRAME.PING, 1, 0, payload));
      }
    }
  });
  socket.on('end', () => (ended = true));
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  socket.write(clientFrames(streams));
  last = Date.now();
  const start = Date.now();
  while (!ended && !closed && Date.now() - last < quietMs && Date.now() - start < 8_000) await sleep(20);
  const serverClosed = ended || closed;
  let hung = false;
  if (!closed) {
    socket.end(frame(FRAME.GOAWAY, 0, 0, Buffer.from([0, 0, 0, 0, 0, 0, 0, 0])));
    const until = Date.now() + finWaitMs;
    while (!closed && !ended && Date.now() < until) await sleep(20);
    hung = !closed && !ended;
    socket.destroy();
  }
  return { streams: [...results.values()].filter((r) => r.id !== 0), goaway, serverClosed, hung };
}
