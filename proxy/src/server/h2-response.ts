/**
 * The response head to an HTTP/2 client, written on its stream rather than through Node's compatibility
 * response (Http2ServerResponse.writeHead). The compatibility layer always responds with
 * `waitForTrailers: true`: every response then ends with a 'wantTrailers' event, a sendTrailers call with no
 * trailers and an empty DATA frame with END_STREAM. The proxy never forwards trailers, so here the stream ends
 * as nghttp2 ends it: on the last DATA frame when the end is known by then, on an empty one otherwise, and on the
 * HEADERS frame when there is no body.
 *
 * The compatibility response stays the exchange's handle: the body goes to the stream (h2-relay.ts) and
 * `res.end()` still ends it, so its 'finish'/'close' events (emitted when the stream closes) and
 * `writableFinished` are what they were. Only the head and the body's writes skip it.
 */
import http2 from 'node:http2';
import type { RawHeaders } from '../model.js';
import { isHopByHop, stripHopByHop } from '../headers.js';

/** RFC 9110 §5.6.2 token, as Node's compatibility layer checks response header names. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Responds on `stream` with `status` and the upstream's `headers` as received: hop-by-hop headers (and names
 * Connection lists) and pseudo-headers are dropped as stripHopByHop drops them, Content-Length too in a 204
 * (RFC 9110 §8.6: HTTP/2 clients reset the stream over it). Names are lower-cased and repeated ones folded into
 * arrays, as h2HeaderObject does; Host is dropped. Node adds Date when there is none, as the compatibility
 * response did. Throws, like writeHead, on a header HTTP/2 cannot carry; does nothing on a stream already closed
 * (writeHead's behaviour).
 */
export function respondH2(stream: http2.ServerHttp2Stream, status: number, headers: RawHeaders): void {
  if (stream.destroyed || stream.closed) return;
  // One pass, no intermediate lists; a Connection header (rare on responses) may name more hop-by-hop headers,
  // then the list is stripped first.
  const out = headerObject(status, headers, false) ?? headerObject(status, stripHopByHop(headers), true);
  // No body to come (HEAD, 204, 205, 304): END_STREAM on the HEADERS frame itself (Node would end the stream
  // after it anyway, with an empty DATA frame).
  const endStream = (stream as { headRequest?: boolean }).headRequest === true || status === 204 || status === 205 || status === 304;
  // Without trailers, Node closes a finished server stream whose request side was never read with an RST_STREAM
  // (NO_ERROR) from a setImmediate (Http2Stream's kMaybeDestroy), one more frame and turn per exchange; a request
  // with no body has nothing to read: marked paused, the stream closes when nghttp2 closes it, as with the
  // compatibility response.
  if (stream.endAfterHeaders && stream.readableFlowing === null) stream.pause();
  stream.respond(out, { endStream, waitForTrailers: false });
}

/** The header object, or undefined when a Connection header is met in a list not stripped yet. */
function headerObject(status: number, headers: RawHeaders, stripped: boolean): http2.OutgoingHttpHeaders | undefined {
  const out: http2.OutgoingHttpHeaders = { ':status': status };
  for (let i = 0; i < headers.length; i++) {
    const [k, v] = headers[i]!;
    const name = k.toLowerCase();
    if (name.charCodeAt(0) === 58 /* ':' */ || isHopByHop(name)) {
      if (name === 'connection' && !stripped) return undefined;
      continue;
    }
    if (name === 'host') continue; // a request header; HTTP/2 carries the authority as :authority
    if (status === 204 && name === 'content-length') continue;
    if (!TOKEN.test(name))
      throw Object.assign(new Error(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
    const prev = out[name];
    if (prev === undefined) out[name] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[name] = [prev as string, v];
  }
  return out;
}
