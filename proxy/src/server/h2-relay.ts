/**
 * Relays an upstream response body to an HTTP/2 client's stream (the head went out with respondH2, without the
 * compatibility response's trailers round trip). One 'data' listener feeds the body capture and the stream, in
 * place of `pipe` (which adds seven listeners to the two streams and an unpipe path per response).
 *
 * Each chunk is written as it comes: holding chunks to the end of the loop's turn (so the last one could carry
 * END_STREAM when the upstream's end follows in a later callback) left the sessions of clients that went away
 * right after the response head open, tunnel socket and all (proxy/test/reliability/lifecycle-fds.test.ts,
 * intercepted HTTP/2: 110 of 1,000 abrupt closes). So when the upstream's end comes after its last chunk was
 * handed over, END_STREAM travels on an empty DATA frame, as nghttp2 sends it.
 *
 * Backpressure as `pipe` does it: the body pauses while the stream's buffer is over its high-water mark.
 * The caller ends the response, as it decides whether the body was complete.
 */
import type http2 from 'node:http2';
import type { Readable } from 'node:stream';

/** `capture` gets every chunk as it arrives (the body capture). */
export function relayToH2(body: Readable, stream: http2.ServerHttp2Stream, capture: { push(chunk: Buffer): void }): void {
  let draining = false;
  const resume = () => {
    draining = false;
    body.resume();
  };
  body.on('data', (chunk: Buffer) => {
    capture.push(chunk);
    if (stream.destroyed) return;
    if (!stream.write(chunk) && !draining) {
      draining = true;
      body.pause();
      stream.once('drain', resume);
    }
  });
}
