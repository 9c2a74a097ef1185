/**
 * The HTTP/2 client leg of a request without a body, handled on its stream: the request and response objects the
 * proxy's handler needs, made here instead of Node's compatibility ones (Http2ServerRequest, Http2ServerResponse).
 *
 * Why: Node's compatibility layer makes two stream objects per HTTP/2 request (a Readable for the request, a
 * Stream for the response) and adds eleven listeners to the stream, two of them closures made per request, for
 * what the proxy reads as a few properties; its request body machinery (push, end, 'end' emitted from a later
 * turn) runs even when there is no body. In the lab's page shape (bursts of 200 image GETs on one connection,
 * `npx tsx bench/h2-paired.ts floor peer:FILE`) a node:http2 MITM that used the compatibility API spent 1.08× the
 * proxy CPU per request of the same MITM on streams; Netlens's handler used it for every HTTP/2 request. Here,
 * Netlens allocates 16% less per request in that load (`bench/profile.ts h2`: ~42 KB against ~50 KB).
 *
 * What stays on Node's compatibility objects (`toCompat`): requests with a body (the handler reads it as a
 * Readable), CONNECT and Expect (node:http2 answers those itself), and any request that server replay or rules
 * will see, as those parts write responses through the whole ServerResponse API.
 *
 * The response emits 'finish' and then 'close' when its stream closes, whether it ended or was reset, as the
 * compatibility response does; `responseFinished` (client.ts) tells the two apart from the stream.
 */
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import { releaseClosedStream } from '../upstream/h2-release.js';

/** A bodiless HTTP/2 request, read from its stream's header list. */
export class H2StreamRequest {
  readonly httpVersion = '2.0';
  constructor(
    readonly stream: http2.ServerHttp2Stream,
    readonly headers: http2.IncomingHttpHeaders,
    /** name, value, name, value... as received, pseudo-headers included (what Http2ServerRequest.rawHeaders is). */
    readonly rawHeaders: string[],
  ) {}
  get method(): string {
    return this.headers[':method'] as string;
  }
  get url(): string {
    return this.headers[':path'] as string;
  }
  get aborted(): boolean {
    return this.stream.aborted;
  }
  /** Nothing to read: the stream ended with its headers. */
  resume(): this {
    return this;
  }
}

const RESPONSE = Symbol('netlens.h2StreamResponse');
type WithResponse = http2.ServerHttp2Stream & { [RESPONSE]?: H2StreamResponse };

// Module-level listeners, not closures per stream: the response is found on the stream.
function onStreamClose(this: WithResponse): void {
  const res = this[RESPONSE];
  if (res === undefined) return;
  res.emit('finish');
  res.emit('close');
  // The closed stream outlives its 'close' (upstream/h2-release.ts): neither the response (whose listeners reach the
  // whole exchange) nor a relay still waiting for 'drain' may stay reachable from it.
  this[RESPONSE] = undefined;
  res.removeAllListeners();
  releaseClosedStream(this);
}
/** A stream error ends the exchange through 'close' (as with the compatibility objects, which swallow it too). */
function ignoreStreamError(): void {}

/** The response to an H2StreamRequest: head and end on the stream; 'finish' and 'close' when the stream closes. */
export class H2StreamResponse extends EventEmitter {
  constructor(readonly stream: http2.ServerHttp2Stream) {
    super();
    (stream as WithResponse)[RESPONSE] = this;
    stream.on('close', onStreamClose);
    stream.on('error', ignoreStreamError);
  }
  get headersSent(): boolean {
    return this.stream.headersSent;
  }
  get writableEnded(): boolean {
    return this.stream.writableEnded;
  }
  /** The proxy's own answers (answerProxyError, answerBadGateway): header names already lower-case. */
  writeHead(status: number, headers: Record<string, string>): this {
    this.stream.respond({ ...headers, ':status': status }, { waitForTrailers: false });
    return this;
  }
  end(body?: string | Buffer): this {
    const stream = this.stream;
    if (stream.destroyed || stream.writableEnded) return this;
    if (!stream.headersSent) stream.respond({ ':status': 200 }, { waitForTrailers: false });
    if (body === undefined) stream.end();
    else stream.end(body);
    return this;
  }
}

/**
 * Whether a new stream can be handled as an H2StreamRequest: no body follows its headers, and it is neither a
 * CONNECT nor carries an Expect header (node:http2's compatibility layer handles those before the request handler).
 */
export function isBodilessPlainRequest(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean {
  return stream.endAfterHeaders && headers[':method'] !== 'CONNECT' && headers.expect === undefined;
}

/**
 * Node's compatibility objects for the same stream, for a request the stream objects do not serve (see above). The
 * H2StreamResponse made with the request stays attached to the stream, unused: its 'finish' and 'close' reach no one.
 */
export function toCompat(req: H2StreamRequest): { req: http2.Http2ServerRequest; res: http2.Http2ServerResponse } {
  const compatReq = new http2.Http2ServerRequest(req.stream, req.headers, {}, req.rawHeaders);
  return { req: compatReq, res: new http2.Http2ServerResponse(req.stream) };
}
