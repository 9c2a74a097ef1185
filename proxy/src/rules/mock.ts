/**
 * Writing a mock: the rule's answer in the client's protocol, through the usual exchange
 * lifecycle (`response` then `complete` events), marked `mocked` (HAR `_mocked: true`) so
 * it is never taken for what the network sent. Delays and throttling of the same plan apply.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Exchange, ExchangeError, RawHeaders } from '../model.js';
import { ErrorCodes } from '../errors.js';
import { BodyCapturer } from '../server/body-capture.js';
import { finishExchange } from '../server/exchange-record.js';
import { flatFromPairs, h2HeaderObject, stripHopByHop } from '../headers.js';
import { clientClosed, endClient, responseFinished, type NodeRequest, type NodeResponse } from '../server/client.js';
import type { ProxyContext } from '../server/context.js';
import type { Plan } from './engine.js';
import { sleep, throttled, trickled } from './pacing.js';
import { harMockResponse, type HarResponse } from './har-mock.js';

export async function writeMock(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  plan: Plan,
  resolveFile: (f: string) => string,
): Promise<void> {
  const m = plan.mock!;
  x.mocked = true;
  x.timestamps.upstreamAssigned = x.timestamps.requestSent = performance.now();
  if (m.har) return writeHarMock(ctx, req, res, x, plan, resolveFile);
  const status = m.status ?? 200;
  let body: Buffer;
  try {
    body = m.bodyFile !== undefined ? await fs.readFile(resolveFile(m.bodyFile)) : Buffer.from(m.body ?? '', 'utf8');
  } catch (err) {
    body = Buffer.from(`Netlens: the mock's bodyFile cannot be read: ${(err as Error).message}\n`);
    return answer(ctx, req, res, x, 500, [['Content-Type', 'text/plain; charset=utf-8']], body, plan, {
      code: ErrorCodes.RULES_FILE,
      message: `Rule "${x.rules?.at(-1)?.id}": bodyFile ${m.bodyFile} cannot be read (${(err as Error).message})`,
      side: 'proxy',
    });
  }
  const headers: RawHeaders = Object.entries(m.headers ?? {});
  if (body.length && !headers.some(([k]) => k.toLowerCase() === 'content-type'))
    headers.push(['Content-Type', 'text/plain; charset=utf-8']);
  return answer(ctx, req, res, x, status, headers, body, plan);
}

/** A recorded response (har-mock.ts); the action's own status and headers win over the recorded ones. */
async function writeHarMock(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  plan: Plan,
  resolveFile: (f: string) => string,
): Promise<void> {
  const m = plan.mock!;
  const ref = m.har!;
  let rec: HarResponse;
  try {
    rec = await harMockResponse(resolveFile(ref.file), ref);
  } catch (err) {
    // Checked when the rules loaded: only a file changed or removed since gets here.
    const message = `Rule "${x.rules?.at(-1)?.id}": har ${ref.file} (${ref.url}) cannot be used: ${(err as Error).message}`;
    return answer(ctx, req, res, x, 500, [['Content-Type', 'text/plain; charset=utf-8']], Buffer.from(`Netlens: ${message}\n`), plan, {
      code: ErrorCodes.RULES_FILE,
      message,
      side: 'proxy',
    });
  }
  const own = new Set(Object.keys(m.headers ?? {}).map((k) => k.toLowerCase()));
  const headers: RawHeaders = [...rec.headers.filter(([k]) => !own.has(k.toLowerCase())), ...Object.entries(m.headers ?? {})];
  return answer(ctx, req, res, x, m.status ?? rec.status, headers, rec.body, plan);
}

async function answer(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  status: number,
  given: RawHeaders,
  body: Buffer,
  plan: Plan,
  recordError?: ExchangeError,
): Promise<void> {
  const noBody = status === 204 || status === 304 || x.request.method === 'HEAD';
  const headers = stripHopByHop(given).filter(([k]) => k.toLowerCase() !== 'content-length');
  if (status !== 204 && status !== 304) headers.push(['Content-Length', String(body.length)]);
  const wait = plan.responseDelayMs + (plan.throttle?.latencyMs ?? 0);
  if (wait > 0) await sleep(wait);
  const statusText = http.STATUS_CODES[status] ?? '';
  x.timestamps.responseHeaders = performance.now();
  if (ctx.events.hasListeners) {
    ctx.events.emit({
      type: 'response',
      response: { id: x.id, status, statusText, httpVersion: x.clientProtocol, headers, at: x.timestamps.responseHeaders },
    });
  }
  const capture = new BodyCapturer(ctx.options.bodyCaptureLimit);
  const finish = (error?: ExchangeError) => {
    x.response = { status, statusText, httpVersion: x.clientProtocol, headers, body: capture.result() };
    x.timestamps.responseEnd = x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, error ?? recordError);
  };
  if (clientClosed(res))
    return finish({ code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection before the response', side: 'client' });
  try {
    if (res instanceof http.ServerResponse) {
      res.sendDate = false;
      res.writeHead(status, statusText, flatFromPairs(headers) as unknown as http.OutgoingHttpHeaders);
    } else {
      res.writeHead(status, h2HeaderObject(headers));
    }
  } catch (err) {
    endClient(req, res);
    return finish({
      code: ErrorCodes.RULES_INVALID,
      message: `The mock cannot be written to the client: ${(err as Error).message}`,
      side: 'proxy',
    });
  }
  x.timestamps.clientResponseHeaders = performance.now();
  const out = noBody ? Buffer.alloc(0) : body;
  let src: Readable = Readable.from(out.length ? [out] : []);
  if (plan.fault?.fault === 'trickle') src = trickled(src, plan.fault.bytes ?? 1, plan.fault.intervalMs ?? 100);
  if (plan.throttle?.downloadBps) src = throttled(src, `${x.clientConnectionId}:down`, plan.throttle.downloadBps);
  const ok = await new Promise<boolean>((resolve) => {
    res.once('finish', () => resolve(responseFinished(res)));
    res.once('close', () => resolve(responseFinished(res)));
    src.on('data', (c: Buffer) => capture.push(c));
    src.pipe(res as NodeJS.WritableStream);
  });
  // pipe() leaves the source running when its destination closes: a trickled or throttled body would go on
  // pacing (a timer per client) for the rest of its time after the client left.
  if (!ok) src.destroy();
  finish(
    ok ? undefined : { code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection during the response', side: 'client' },
  );
}
