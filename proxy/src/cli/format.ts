import type { Exchange } from '../model.js';

/** One terminal line per exchange: method, URL, status (or error code), protocols, time. */
export function formatExchangeLine(x: Exchange): string {
  const status = x.error ? `ERR ${x.error.code}` : String(x.response?.status ?? '-');
  const proto =
    x.upstreamProtocol && x.upstreamProtocol !== x.clientProtocol ? `${x.clientProtocol}→${x.upstreamProtocol}` : x.clientProtocol;
  const ms = x.clientTimings.total >= 0 ? `${x.clientTimings.total.toFixed(1)} ms` : '-';
  // Which rules touched it (`[rules: api, slow]`), and whether the answer was made up (`mocked`).
  const rules = x.rules?.length ? ` [${x.mocked ? 'mocked, ' : ''}rules: ${x.rules.map((r) => r.id).join(', ')}]` : '';
  const tag = (x.transport === 'tunnel' ? ' [tunnel]' : '') + rules;
  return `${x.request.method.padEnd(7)} ${x.request.url} ${status} ${proto} ${ms}${tag}${x.error ? ` — ${x.error.message}` : ''}`;
}

export { plural } from '../plural.js';
