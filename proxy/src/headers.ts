/**
 * Header handling on both legs: raw (order- and case-preserving) headers in,
 * hop-by-hop headers out (RFC 9110 §7.6.1), and conversions for HTTP/2, which
 * forbids connection-specific headers (RFC 9113 §8.2.2).
 */
import type { RawHeaders } from './model.js';

/** Hop-by-hop headers: meaningful for one connection only, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Whether a lower-cased name is hop-by-hop in itself (names listed in Connection are too: see stripHopByHop). */
export function isHopByHop(lowerName: string): boolean {
  return HOP_BY_HOP.has(lowerName);
}

/** Node's rawHeaders (flat [k, v, k, v]) → pairs. */
export function pairsFromFlat(flat: string[]): RawHeaders {
  // Sized once: every request's headers pass here (pushing grew the array, a copy each time).
  const n = flat.length >> 1;
  const out: RawHeaders = new Array<[string, string]>(n);
  for (let i = 0; i < n; i++) out[i] = [flat[2 * i]!, flat[2 * i + 1]!];
  return out;
}

/** Pairs → the flat array that http.request / writeHead accept (keeps order and case). */
export function flatFromPairs(pairs: RawHeaders): string[] {
  const out: string[] = [];
  for (const [k, v] of pairs) out.push(k, v);
  return out;
}

/** Names listed in Connection (e.g. `Connection: close, X-Foo`) are hop-by-hop too. */
function connectionTokens(headers: RawHeaders): Set<string> | undefined {
  let tokens: Set<string> | undefined;
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0];
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue;
    tokens ??= new Set();
    for (const t of headers[i]![1].split(',')) tokens.add(t.trim().toLowerCase());
  }
  return tokens;
}

export interface StripOptions {
  /** Keep Upgrade/Connection for WebSocket handshakes. */
  keepUpgrade?: boolean;
}

/** Removes hop-by-hop headers and HTTP/2 pseudo-headers; keeps everything else in order. */
export function stripHopByHop(headers: RawHeaders, opts?: StripOptions): RawHeaders {
  // Runs on every exchange: no list of lower-cased names is made (a lower-case name, as all HTTP/2 ones, is
  // its own toLowerCase), and the Connection header (rare on keep-alive traffic) is only parsed when present.
  const listed = connectionTokens(headers);
  const out: RawHeaders = [];
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0].toLowerCase();
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    const keep = (opts?.keepUpgrade && (name === 'upgrade' || name === 'connection')) || (!HOP_BY_HOP.has(name) && !listed?.has(name));
    if (keep) out.push(headers[i]!);
  }
  return out;
}

export function getHeader(headers: RawHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of headers) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/**
 * Pairs → an HTTP/2 header object: names lower-cased (HTTP/2 requires it),
 * repeated names folded into arrays (set-cookie must stay separate values).
 */
export function h2HeaderObject(headers: RawHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of headers) {
    const name = k.toLowerCase();
    if (name === 'host') continue; // becomes :authority
    const prev = out[name];
    if (prev === undefined) out[name] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[name] = [prev, v];
  }
  return out;
}

/** Whether a request has a body to forward (RFC 9112 §6.3). */
export function hasRequestBody(headers: RawHeaders): boolean {
  const te = getHeader(headers, 'transfer-encoding');
  if (te) return true;
  const cl = getHeader(headers, 'content-length');
  return cl !== undefined && cl.trim() !== '0';
}
