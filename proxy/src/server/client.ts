/**
 * The client leg as every part of the server sees it: the request and response types of
 * both HTTP versions, where a request came from, and the two ways the proxy ends a client
 * exchange itself. Its own module so handle-request.ts and the modules it calls
 * (respond.ts, request-checks.ts, bad-gateway.ts, exchange-record.ts) share it without
 * importing each other.
 */
import http from 'node:http';
import http2 from 'node:http2';
import type { Transport } from '../model.js';
import type { H2StreamRequest, H2StreamResponse } from './h2-stream-leg.js';

/** Node's own request and response objects: what server replay and rules write through. */
export type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;
/** Every client request as the handler gets it: Node's objects, or a bodiless HTTP/2 request's own (h2-stream-leg.ts). */
export type ClientRequest = NodeRequest | H2StreamRequest;
export type ClientResponse = NodeResponse | H2StreamResponse;
/** What the handler calls on every client response, whichever kind (one signature where Node's objects have overloads). */
export interface ResponseHandle {
  on(event: 'close' | 'finish', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  end(body?: string | Buffer): unknown;
}

/** Where a request came from, decided by the listener that accepted it. */
export interface RequestOrigin {
  transport: Transport;
  clientConnectionId: string;
  /** For requests inside CONNECT: the tunnel's target (host without brackets, port). */
  target?: { host: string; port: number };
}

/**
 * Whether the whole response reached the client's connection; read it on the response's 'finish' or 'close'.
 * HTTP/1: ServerResponse.writableFinished. HTTP/2: the stream closed without a reset. Node's compatibility
 * response cannot tell: when its stream closes it sets writableFinished and emits 'finish' then 'close', also when
 * the client reset the stream mid-body, so an exchange looked complete and its upstream stream was never
 * cancelled (proxy/test/reliability/lifecycle-slow-body.test.ts).
 */
export function responseFinished(res: ClientResponse): boolean {
  if (res instanceof http.ServerResponse) return res.writableFinished;
  const stream = res.stream as http2.ServerHttp2Stream | undefined;
  return stream !== undefined && stream.closed && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR;
}

/**
 * Whether the client's side is gone before anything more can be written to it. HTTP/1: ServerResponse.destroyed.
 * Node's HTTP/2 compatibility response has no `destroyed` (always undefined): its stream's is read instead.
 */
export function clientClosed(res: ClientResponse): boolean {
  if (res instanceof http.ServerResponse) return res.destroyed;
  const stream = res.stream as http2.ServerHttp2Stream | undefined;
  return stream === undefined || stream.destroyed || stream.closed;
}

/** Ends the client's connection without a response: RST_STREAM on HTTP/2, socket close on HTTP/1. */
export function endClient(req: ClientRequest, res: ClientResponse): void {
  if ('stream' in req && req.stream) {
    const stream = req.stream;
    if (stream.destroyed) return;
    // After a head sent without trailers (h2-response.ts), close() would end the writable side first, and Node
    // flushes that END_STREAM before the RST_STREAM: the client would take a cut-off body as complete.
    // destroy() resets the stream (INTERNAL_ERROR too) without ending it.
    if (stream.headersSent) stream.destroy(new Error('The proxy reset the client stream: the response could not be completed'));
    else stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  } else {
    (res as http.ServerResponse).socket?.destroy();
  }
}

/** A plain-text error the proxy itself answers with (bad requests only, never upstream failures). */
export function answerProxyError(res: ClientResponse, status: number, message: string): void {
  if (res.headersSent) return;
  const body = `${message}\n`;
  if (res instanceof http.ServerResponse) {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  } else {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
  }
  (res as ResponseHandle).end(body);
}
