/**
 * Rules on WebSocket (and other HTTP/1.1 Upgrade) handshakes: a mock refuses the upgrade with
 * its status and body (403 when it gives none), a close/reset fault drops the connection, and
 * delays hold the handshake before it goes upstream. Matchers see the URL as ws:// or wss://.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { ErrorCodes } from '../errors.js';
import { emptyBody } from '../server/body-capture.js';
import { finishExchange, newExchangeRecord } from '../server/exchange-record.js';
import { pairsFromFlat } from '../headers.js';
import { targetUrl } from '../server/handle-request.js';
import type { RequestOrigin } from '../server/client.js';
import type { ProxyContext } from '../server/context.js';
import type { RuleHit } from './types.js';

/** True when the rules took the handshake over (refused it, or will call `proceed` after a delay). */
export function upgradeRules(
  ctx: ProxyContext,
  req: http.IncomingMessage,
  socket: Duplex,
  origin: RequestOrigin,
  proceed: (hits: RuleHit[]) => void,
): boolean {
  const rules = ctx.options.rules?.current;
  const target = targetUrl(req, origin);
  if (!rules || typeof target === 'string') return false;
  const url = new URL(target.href.replace(/^http/, 'ws'));
  const headers = pairsFromFlat(req.rawHeaders);
  const plan = rules.evaluate({ method: req.method ?? 'GET', url, headers, httpVersion: 'http/1.1', body: null });
  if (!plan) return false;
  if (plan.mock || (plan.fault && plan.fault.fault !== 'trickle' && plan.fault.fault !== 'truncate')) {
    const start = performance.now();
    const x = newExchangeRecord(ctx, { origin, start, method: req.method ?? 'GET', url: url.href, httpVersion: 'http/1.1', headers });
    x.rules = plan.hits;
    x.websocket = true;
    x.timestamps.clientRequestEnd = start;
    if (plan.mock) {
      const status = plan.mock.status ?? 403;
      const body = Buffer.from(plan.mock.body ?? '', 'utf8');
      const statusText = http.STATUS_CODES[status] ?? '';
      const extra = Object.entries(plan.mock.headers ?? {}).filter(([k]) => !/^(content-length|connection)$/i.test(k));
      const head = [...extra, ['Content-Length', String(body.length)], ['Connection', 'close']] as [string, string][];
      socket.end(
        Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${statusText}\r\n${head.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`), body]),
      );
      x.mocked = true;
      x.response = { status, statusText, httpVersion: 'http/1.1', headers: head, body: { ...emptyBody(), size: body.length } };
      x.timestamps.responseHeaders =
        x.timestamps.clientResponseHeaders =
        x.timestamps.responseEnd =
        x.timestamps.clientResponseEnd =
          performance.now();
      finishExchange(ctx, x);
    } else {
      if (plan.fault!.fault === 'reset' && typeof (socket as net.Socket).resetAndDestroy === 'function') {
        try {
          (socket as net.Socket).resetAndDestroy();
        } catch {
          socket.destroy();
        }
      } else socket.destroy();
      x.timestamps.clientResponseEnd = performance.now();
      finishExchange(ctx, x, {
        code: ErrorCodes.RULE_FAULT,
        message: `A rule refused the upgrade (fault: ${plan.fault!.fault})`,
        side: 'proxy',
      });
    }
    return true;
  }
  const wait = plan.requestDelayMs + plan.responseDelayMs + (plan.throttle?.latencyMs ?? 0);
  if (wait <= 0) proceed(plan.hits);
  else setTimeout(() => (socket.destroyed ? undefined : proceed(plan.hits)), wait);
  return true;
}
