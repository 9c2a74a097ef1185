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

/**
 * One per HTTP/2 response (a class: its state is one object, and the 'data' listener its only closure). Start it
 * with `relayToH2`.
 */
export class H2Relay {
  /** Chunks held back until the end of this turn of the loop (most responses: one). */
  private held: Buffer[] | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private draining = false;

  constructor(
    private readonly body: Readable,
    private readonly stream: http2.ServerHttp2Stream,
    private readonly capture: { push(chunk: Buffer): void },
  ) {}

  readonly onData = (chunk: Buffer): void => {
    this.capture.push(chunk);
    if (this.held === undefined) this.held = [chunk];
    else this.held.push(chunk);
    this.scheduled ??= setImmediate(flushLater, this);
  };

  /** Writes the chunks still held back (call right before ending the response, in the same tick). */
  flush(): void {
    if (this.scheduled !== undefined) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    const chunks = this.held;
    if (chunks === undefined) return;
    this.held = undefined;
    const stream = this.stream;
    if (stream.destroyed) return;
    let ok = true;
    for (let i = 0; i < chunks.length; i++) ok = stream.write(chunks[i]!);
    if (!ok && !this.draining) {
      this.draining = true;
      this.body.pause();
      stream.once('drain', () => {
        this.draining = false;
        this.body.resume();
      });
    }
  }
}

function flushLater(relay: H2Relay): void {
  relay.flush();
}

/** `capture` gets every chunk as it arrives (the body capture): one 'data' listener serves both. */
export function relayToH2(body: Readable, stream: http2.ServerHttp2Stream, capture: { push(chunk: Buffer): void }): H2Relay {
  const relay = new H2Relay(body, stream, capture);
  body.on('data', relay.onData);
  return relay;
}
