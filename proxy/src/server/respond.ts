/**
 * The `respond` hook (options.ts RespondHook): lets a caller answer a request
 * instead of the network. Server replay (replay/server-replay.ts) uses it to
 * serve a recorded session.
 *
 * The hook may need the request body to choose (replay matches on it), so the
 * body is read first, bounded by `maxBodyBytes`; past that bound the hook sees
 * no body and, if it says `forward`, the bytes already read are sent upstream
 * ahead of the rest of the stream (nothing is lost or reordered).
 *
 * An answer is written in the client's protocol (HTTP/1.x or HTTP/2) and goes
 * through the same exchange lifecycle as a forwarded response (`request` →
 * `response` → `complete`), so recorders and the UI see replayed exchanges;
 * they carry `replayed: true`.
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Exchange, ExchangeError } from '../model.js';
import type { HookAnswer } from '../options.js';
import { ErrorCodes } from '../errors.js';
import { BodyCapturer } from './body-capture.js';
import { finishExchange } from './exchange-record.js';
import { flatFromPairs, h2HeaderObject, stripHopByHop } from '../headers.js';
import { clientClosed, endClient, responseFinished, type NodeRequest, type NodeResponse } from './client.js';
import type { ProxyContext } from './context.js';

/** `handled`: the exchange is finished. Otherwise forward, with `body` replacing the client stream. */
export type HookOutcome = { handled: true } | { handled: false; body: Readable | null };

/** Pacing is capped so a bogus recorded timing cannot hold a request for hours. */
const MAX_DELAY_MS = 60_000;
/** A paced body is written in at most this many slices. */
const PACED_SLICES = 8;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(MAX_DELAY_MS, Math.max(0, ms))));

interface ReadBody {
  /** The whole body, or null when there is none or it was over the bound. */
  whole: Buffer | null;
  /** What to forward upstream if the hook says so. */
  forward: Readable | null;
}

async function readBounded(req: NodeRequest, hasBody: boolean, max: number): Promise<ReadBody> {
  if (!hasBody) return { whole: null, forward: null };
  if (max <= 0) return { whole: null, forward: req as unknown as Readable };
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = await new Promise<boolean>((resolve) => {
    const done = (whole: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(whole);
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size > max) {
        req.pause();
        done(false);
      }
    };
    const onEnd = () => done(true);
    // Client aborted mid-body: forwarding will fail the usual way.
    const onClose = () => done(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
  if (complete) {
    const whole = Buffer.concat(chunks);
    return { whole, forward: Readable.from([whole]) };
  }
  const rest = async function* () {
    yield* chunks;
    for await (const c of req as AsyncIterable<Buffer>) yield c;
  };
  return { whole: null, forward: Readable.from(rest()) };
}

export async function runRespondHook(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  target: URL,
  hasBody: boolean,
): Promise<HookOutcome> {
  const hook = ctx.options.respond!;
  const body = await readBounded(req, hasBody, hook.maxBodyBytes);
  let decision: HookAnswer | 'forward' | 'kill';
  try {
    decision = await hook.respond({
      method: x.request.method,
      url: target,
      headers: x.request.headers,
      body: body.whole,
      protocol: x.clientProtocol,
    });
  } catch (err) {
    // A bug in the hook must not take the request down: forward it and say so.
    process.emitWarning(`Netlens: respond hook failed, forwarding: ${(err as Error)?.stack ?? err}`, { code: ErrorCodes.INTERNAL });
    decision = 'forward';
  }
  if (decision === 'forward') {
    x.replayed = false;
    return { handled: false, body: body.forward };
  }
  // Answered without forwarding: drain a body that was not read whole, so an HTTP/1.1 connection stays usable.
  const unreadBody = hasBody && !body.whole;
  if (unreadBody) req.resume();
  const reqCapture = new BodyCapturer(ctx.options.bodyCaptureLimit);
  if (body.whole) reqCapture.push(body.whole);
  x.request.body = reqCapture.result();
  if (decision === 'kill') {
    x.replayed = false;
    endClient(req, res);
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, {
      code: ErrorCodes.REPLAY_UNMATCHED,
      message: 'No recorded response matches this request; the replay policy is "kill", so the connection was closed',
      side: 'proxy',
    });
    return { handled: true };
  }
  await writeAnswer(ctx, req, res, x, decision);
  return { handled: true };
}

/** Writes a hook's answer to the client, paced as asked, and finishes the exchange. */
async function writeAnswer(ctx: ProxyContext, req: NodeRequest, res: NodeResponse, x: Exchange, a: HookAnswer): Promise<void> {
  x.replayed = a.fromRecording;
  // No upstream leg: the "upstream" phases become the hook's own (blocked = body read + match, wait = pacing).
  x.timestamps.upstreamAssigned = x.timestamps.requestSent = performance.now();
  if (a.delayHeadMs) await sleep(a.delayHeadMs);
  const headers = stripHopByHop(a.headers);
  const statusText = a.statusText || http.STATUS_CODES[a.status] || '';
  x.timestamps.responseHeaders = performance.now();
  ctx.events.emit({
    type: 'response',
    response: { id: x.id, status: a.status, statusText, httpVersion: x.clientProtocol, headers, at: x.timestamps.responseHeaders },
  });
  const finish = (error?: ExchangeError) => {
    const capture = new BodyCapturer(ctx.options.bodyCaptureLimit);
    capture.push(a.body);
    x.response = { status: a.status, statusText, httpVersion: x.clientProtocol, headers, body: capture.result() };
    finishExchange(ctx, x, error);
  };
  if (clientClosed(res))
    return finish({ code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection before the response', side: 'client' });
  try {
    if (res instanceof http.ServerResponse) {
      res.sendDate = false;
      res.writeHead(a.status, statusText, flatFromPairs(headers) as unknown as http.OutgoingHttpHeaders);
    } else {
      res.writeHead(a.status, h2HeaderObject(headers));
    }
  } catch (err) {
    endClient(req, res);
    return finish({
      code: ErrorCodes.UPSTREAM_PROTOCOL,
      message: `Recorded response cannot be written to the client: ${(err as Error).message}`,
      side: 'proxy',
    });
  }
  x.timestamps.clientResponseHeaders = performance.now();
  const ended = new Promise<boolean>((resolve) => {
    res.once('finish', () => resolve(responseFinished(res)));
    res.once('close', () => resolve(responseFinished(res)));
  });
  if (a.spreadBodyMs && a.spreadBodyMs > 0 && a.body.length > 1) {
    const slices = Math.min(PACED_SLICES, a.body.length);
    const step = Math.ceil(a.body.length / slices);
    for (let i = 0; i < a.body.length && !clientClosed(res); i += step) {
      await sleep(a.spreadBodyMs / slices);
      (res as http.ServerResponse).write(a.body.subarray(i, i + step));
    }
    res.end();
  } else {
    res.end(a.body);
  }
  const ok = await ended;
  x.timestamps.responseEnd = x.timestamps.clientResponseEnd = performance.now();
  finish(
    ok ? undefined : { code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection during the response', side: 'client' },
  );
}
