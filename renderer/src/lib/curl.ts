/**
 * "Copy as cURL": an exchange's request as a shell command that replays it.
 * HTTP/2 pseudo-headers become the URL and method; hop-by-hop headers that curl
 * sets itself are left out; single quotes are escaped for POSIX shells.
 */
import type { HeaderList } from '../../../proxy/src/api/contract';

const SKIP = new Set(['host', 'content-length', 'connection', 'proxy-connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te']);

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function toCurl(req: { method: string; url: string; headers: HeaderList; body?: string; httpVersion?: string }): string {
  const parts = ['curl', shellQuote(req.url)];
  if (req.method !== 'GET' || req.body) parts.push('-X', req.method);
  for (const [name, value] of req.headers) {
    if (name.startsWith(':') || SKIP.has(name.toLowerCase())) continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (req.body) parts.push('--data-raw', shellQuote(req.body));
  if (req.httpVersion === 'h2' || /^http\/2/i.test(req.httpVersion ?? '')) parts.push('--http2');
  if (req.headers.some(([n, v]) => n.toLowerCase() === 'accept-encoding' && /gzip|br|deflate/.test(v))) parts.push('--compressed');
  return parts.join(' ');
}
