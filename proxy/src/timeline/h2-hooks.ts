/**
 * Where the socket timeline sees HTTP/2 sessions. nghttp2 reads and writes the session's socket from C++
 * (the TLS socket's native handle), so socket-hooks.ts sees none of it. What JavaScript does see is each
 * stream's frames as they are handed to nghttp2 or received from it:
 *
 * - DATA written: `Http2Stream.prototype._write`/`_writev` (the stream's body chunks, one call per chunk or batch);
 * - DATA read: `push` on an Http2Stream (each DATA payload nghttp2 delivers to the stream);
 * - response HEADERS written (server streams): `ServerHttp2Stream.prototype.respond`;
 * - response HEADERS read (client streams): the caller's 'response' listener calls `streamResponseHead`.
 *
 * As in socket-hooks.ts, the prototypes are wrapped once per process (from the first stream watched, as
 * node:http2 does not export its stream classes), so a watched stream gets no closure. Its sink is a symbol
 * property set once right after the stream is made (every watched stream takes the same hidden-class
 * transition): a WeakMap entry per stream, two per exchange, measured ~15% more proxy CPU per HTTP/2
 * exchange than the property (ephemeron work in every GC; `bench/profile.ts h2`, NETLENS_PROFILE_TIMELINE=0|1).
 * Request HEADERS are recorded by the caller (it has them).
 *
 * What a frame event is not: a send syscall or a TLS record. nghttp2 packs frames of several streams into
 * one write after the JavaScript turn (measured in Node 20: the TLS handle's byte counters move only then),
 * so the time of a write event is when the proxy handed the frame over, and its size the frame's payload.
 */
import type http2 from 'node:http2';

export interface StreamSink {
  write(bytes: number): void;
  read(bytes: number): void;
}

type Chunk = Buffer | string | Uint8Array;
type Callback = (err?: Error | null) => void;
type Headers = Record<string, unknown> | unknown[];
interface HookedStream {
  _write: (this: object, chunk: Chunk, encoding: BufferEncoding, cb: Callback) => unknown;
  _writev: (this: object, chunks: { chunk: Chunk; encoding: BufferEncoding }[], cb: Callback) => unknown;
  push: (this: object, chunk: unknown, encoding?: BufferEncoding) => boolean;
  respond?: (this: object, headers?: Headers, options?: unknown) => unknown;
}

const SINK = Symbol('netlens.timeline.sink');
type Watched = { [SINK]?: StreamSink };
/** Prototypes already wrapped (Http2Stream's, ServerHttp2Stream's). */
const hooked = new WeakSet<object>();

/** Records the stream's frames into `sink` from now on; `stream` is a ServerHttp2Stream or a ClientHttp2Stream. */
export function attachStreamSink(stream: http2.Http2Stream, sink: StreamSink): void {
  const own = Object.getPrototypeOf(stream) as HookedStream;
  if (!hooked.has(own)) hookPrototypes(own);
  (stream as unknown as Watched)[SINK] = sink;
}

/**
 * A client stream's response head, which arrives as an event (no method of the stream is called for it): the
 * caller's own 'response' listener reports it, rather than a second listener on every stream.
 */
export function streamResponseHead(stream: http2.Http2Stream, headers: Record<string, unknown>): void {
  (stream as unknown as Watched)[SINK]?.read(headerListBytes(headers));
}

/**
 * A header list's size as HTTP/2's SETTINGS_MAX_HEADER_LIST_SIZE counts it (name + value + 32 per field):
 * the uncompressed size; the HPACK bytes on the wire are fewer and not visible from JavaScript.
 */
export function headerListBytes(headers: Headers | readonly (readonly [string, string])[]): number {
  let n = 0;
  if (Array.isArray(headers)) {
    for (const h of headers) {
      if (Array.isArray(h)) n += String(h[0]).length + String(h[1]).length + 32;
      else n += String(h).length + 16; // a flat [name, value, …] list: 32 per pair
    }
    return n;
  }
  for (const k in headers) {
    const v = (headers as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const one of v) n += k.length + String(one).length + 32;
    else n += k.length + String(v).length + 32;
  }
  return n;
}

function chunkBytes(chunk: Chunk, encoding: BufferEncoding): number {
  return typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
}

function hookPrototypes(own: HookedStream): void {
  hooked.add(own);
  if (typeof own.respond === 'function' && Object.hasOwn(own, 'respond')) {
    const respond = own.respond;
    own.respond = function (headers, options) {
      const r = respond.call(this, headers, options);
      const sink = (this as Watched)[SINK];
      if (sink !== undefined) sink.write(headerListBytes(headers ?? {}));
      return r;
    };
  }
  // Http2Stream.prototype: shared by server and client streams.
  const base = Object.getPrototypeOf(own) as HookedStream;
  if (hooked.has(base)) return;
  hooked.add(base);
  const write = base._write;
  base._write = function (chunk, encoding, cb) {
    const sink = (this as Watched)[SINK];
    if (sink !== undefined) sink.write(chunkBytes(chunk, encoding));
    return write.call(this, chunk, encoding, cb);
  };
  const writev = base._writev;
  base._writev = function (chunks, cb) {
    const sink = (this as Watched)[SINK];
    if (sink !== undefined) {
      let n = 0;
      for (let i = 0; i < chunks.length; i++) n += chunkBytes(chunks[i].chunk, chunks[i].encoding);
      sink.write(n);
    }
    return writev.call(this, chunks, cb);
  };
  // Readable.prototype.push, inherited: an own wrapper on Http2Stream.prototype affects HTTP/2 streams only.
  const push = base.push;
  base.push = function (chunk, encoding) {
    if (chunk) {
      const sink = (this as Watched)[SINK];
      if (sink !== undefined) {
        const n = chunkBytes(chunk as Chunk, encoding ?? 'utf8');
        if (n > 0) sink.read(n);
      }
    }
    return push.call(this, chunk, encoding);
  };
}
