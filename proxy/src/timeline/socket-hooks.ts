/**
 * Where the socket timeline sees writes and reads: three methods of `net.Socket.prototype`
 * (which tls.TLSSocket inherits), wrapped once per process, that look the socket up in a
 * WeakMap and record only for the sockets a timeline watches.
 *
 * Why the prototype and not each socket: wrapping `_write`/`_writev`/`push`/`setNoDelay` on every
 * socket the proxy owns gave each one its own closures and its own hidden class, and cost ~10% more
 * proxy CPU per request under load; here a watched socket stays an ordinary socket, and one that is
 * not watched (any other socket of the process) pays one WeakMap miss per write and read.
 *
 * - Writes: `_writeGeneric`, which `_write` and `_writev` call when Node hands data to the kernel
 *   (after cork/uncork, one call per batch), so a write is close to one send syscall and
 *   `socket.write()` calls that Node coalesces show as one, which is what Nagle sees. A write made
 *   while the socket is still connecting is kept by Node and handed over again on 'connect': it is
 *   recorded then, once.
 * - Reads: `push` (JS-consumed sockets: undici, tunnels). Sockets whose reads go straight from C++
 *   to Node's HTTP/1 parser or to nghttp2 never call it; the proxy marks those reads itself.
 * - `setNoDelay`: the socket's Nagle state for the writes that follow.
 */
import net from 'node:net';

export interface SocketSink {
  write(bytes: number): void;
  read(bytes: number): void;
  /** Nagle's algorithm turned on (false) or off (true) on the socket. */
  noDelay(noDelay: boolean): void;
}

type Chunk = Buffer | string | Uint8Array;
type Callback = (err?: Error | null) => void;
/** The socket's methods as properties (they are taken off the prototype and called with `.call`). */
interface Hooked {
  _write: (this: Hooked, chunk: Chunk, encoding: BufferEncoding, cb: Callback) => unknown;
  _writev: (this: Hooked, chunks: { chunk: Chunk; encoding: BufferEncoding }[], cb: Callback) => unknown;
  _writeGeneric: (this: Hooked, writev: boolean, data: unknown, encoding: BufferEncoding, cb: Callback) => unknown;
  push: (this: Hooked, chunk: unknown, encoding?: BufferEncoding) => boolean;
  setNoDelay: (this: Hooked, noDelay?: boolean) => unknown;
  connecting: boolean;
  _handle: unknown;
}

const sinks = new WeakMap<object, SocketSink>();
let installed = false;

/** Records the socket's writes, reads and Nagle changes into `sink` from now on (a socket has one sink). */
export function attachSink(socket: net.Socket, sink: SocketSink): void {
  if (!installed) install();
  sinks.set(socket, sink);
}

function chunkBytes(chunk: Chunk, encoding: BufferEncoding): number {
  return typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
}

/** `_writev`'s batch: an array of { chunk, encoding }. */
function batchBytes(data: { chunk: Chunk; encoding: BufferEncoding }[]): number {
  let n = 0;
  for (let i = 0; i < data.length; i++) n += chunkBytes(data[i].chunk, data[i].encoding);
  return n;
}

function install(): void {
  installed = true;
  const proto = net.Socket.prototype as unknown as Hooked;
  const writeGeneric = proto._writeGeneric;
  if (typeof writeGeneric === 'function') {
    proto._writeGeneric = function (writev, data, encoding, cb) {
      const sink = sinks.get(this);
      if (sink !== undefined && !this.connecting && this._handle) {
        sink.write(writev ? batchBytes(data as { chunk: Chunk; encoding: BufferEncoding }[]) : chunkBytes(data as Chunk, encoding));
      }
      return writeGeneric.call(this, writev, data, encoding, cb);
    };
  } else {
    // Node 20–24 have it; should a later one not, `_write`/`_writev` are the layer above (a write made while connecting then
    // shows when made, not when sent).
    const write = proto._write;
    proto._write = function (chunk, encoding, cb) {
      sinks.get(this)?.write(chunkBytes(chunk, encoding));
      return write.call(this, chunk, encoding, cb);
    };
    const writev = proto._writev;
    proto._writev = function (chunks, cb) {
      sinks.get(this)?.write(batchBytes(chunks));
      return writev.call(this, chunks, cb);
    };
  }
  const push = proto.push;
  proto.push = function (chunk, encoding) {
    if (chunk) {
      const sink = sinks.get(this);
      if (sink !== undefined) {
        const n = chunkBytes(chunk as Chunk, encoding ?? 'utf8');
        if (n > 0) sink.read(n);
      }
    }
    return push.call(this, chunk, encoding);
  };
  const setNoDelay = proto.setNoDelay;
  proto.setNoDelay = function (noDelay) {
    // Node's own reading of the argument: omitted means true.
    sinks.get(this)?.noDelay(noDelay === undefined ? true : Boolean(noDelay));
    return setNoDelay.call(this, noDelay);
  };
}
