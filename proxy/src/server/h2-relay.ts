/**
 * Relays an upstream response body to an HTTP/2 client's stream so that END_STREAM rides on the last DATA
 * frame, as the origin usually sent it, rather than on an empty DATA frame of its own (a second TLS record and
 * send for every small response).
 *
 * Node puts END_STREAM on a DATA frame only when the stream is ended in the same tick as its last write. An
 * upstream body's last chunk and its end arrive as two callbacks from C++ (an HTTP/2 upstream's DATA frame and
 * its END_STREAM, or a socket read and the parser's end), with the tick queue run between them; written as it
 * comes, the chunk is already framed without the flag by the time the end is known. So a chunk waits until the
 * end of this event-loop turn's I/O (setImmediate): when the body ends before that, the chunk and the end go
 * out together. The wait is within one turn of the loop: nghttp2 itself sends only from a native immediate of
 * that turn or the next.
 *
 * Backpressure as `pipe` does it: the body pauses while the stream's buffer is over its high-water mark.
 * The caller ends the response (`flush` first), as it decides whether the body was complete.
 */
import type http2 from 'node:http2';
import type { Readable } from 'node:stream';

export interface H2Relay {
  /** Writes the chunks still held back (call right before ending the response, in the same tick). */
  flush(): void;
}

/** `onChunk` sees every chunk as it arrives (the body capture): one 'data' listener serves both. */
export function relayToH2(body: Readable, stream: http2.ServerHttp2Stream, onChunk: (chunk: Buffer) => void): H2Relay {
  let held: Buffer[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let draining = false;
  const resume = () => {
    draining = false;
    body.resume();
  };
  const flush = () => {
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    if (held.length === 0) return;
    const chunks = held;
    held = [];
    if (stream.destroyed) return;
    let ok = true;
    for (let i = 0; i < chunks.length; i++) ok = stream.write(chunks[i]!);
    if (!ok && !draining) {
      draining = true;
      body.pause();
      stream.once('drain', resume);
    }
  };
  const later = () => {
    scheduled = undefined;
    flush();
  };
  body.on('data', (chunk: Buffer) => {
    onChunk(chunk);
    held.push(chunk);
    scheduled ??= setImmediate(later);
  });
  return { flush };
}
