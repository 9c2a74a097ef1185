/**
 * HAR entries (from any tool: Chrome, Firefox, Charles, Netlens…) → the UI's
 * row, detail and body types, so an opened HAR shows in Traffic and Waterfall
 * exactly like live traffic. Defensive: other tools omit fields, use -1, or
 * write odd protocol names.
 */
import type { BodyView, ExchangeDetail, ExchangeSummary, HarEntry, HarLog, HeaderList, PhaseTimings } from '../../../proxy/src/api/contract';
import { base64ToBytes, bytesToBase64 } from './format';
import { decodeFailureNote } from '../../../proxy/src/api/decode-note';

const num = (n: unknown, fallback = -1): number => (typeof n === 'number' && Number.isFinite(n) ? n : fallback);

/** `HTTP/2.0`, `http/2.0`, `h2` → `h2`; `HTTP/1.1` → `http/1.1`; `h3`, `http/3` → `h3`. */
export function normalizeProtocol(v: string | undefined): string {
  const s = (v ?? '').trim().toLowerCase();
  if (s === 'h2' || s === 'http/2' || s === 'http/2.0') return 'h2';
  if (s === 'h3' || s === 'http/3' || s === 'http/3.0') return 'h3';
  return s || '–';
}

function splitUrl(url: string): { host: string; path: string } {
  try {
    const u = new URL(url);
    return { host: u.host, path: u.pathname + u.search };
  } catch {
    return { host: '', path: url };
  }
}

function harTimings(e: HarEntry): PhaseTimings {
  const t = e.timings ?? ({} as HarEntry['timings']);
  return {
    blocked: num(t.blocked),
    dns: num(t.dns),
    connect: num(t.connect),
    ssl: num(t.ssl),
    send: num(t.send, 0),
    wait: num(t.wait, 0),
    receive: num(t.receive, 0),
  };
}

function mimeOf(e: HarEntry): string {
  const fromContent = e.response?.content?.mimeType;
  const fromHeader = e.response?.headers?.find((h) => h.name.toLowerCase() === 'content-type')?.value;
  return (fromContent || fromHeader || '').split(';')[0]!.trim().toLowerCase();
}

export function harEntryToRow(e: HarEntry, index: number): ExchangeSummary {
  const url = e.request?.url ?? '';
  const status = num(e.response?.status, 0);
  const errorText = typeof e.response?._error === 'string' && e.response._error ? e.response._error : typeof e._error === 'string' ? (e._error as string) : undefined;
  const failed = status === 0 || Boolean(errorText);
  const transfer = num(e.response?._transferSize as number | undefined, NaN);
  const bodySize = num(e.response?.bodySize);
  const responseSize = Number.isFinite(transfer) && transfer >= 0 ? transfer : bodySize >= 0 ? bodySize : num(e.response?.content?.size);
  const requestSize = num(e.request?.bodySize) >= 0 ? num(e.request?.bodySize) : (e.request?.postData?.text?.length ?? 0);
  const startTime = Date.parse(e.startedDateTime);
  return {
    id: `h${index}`,
    startedDateTime: e.startedDateTime,
    startTime: Number.isFinite(startTime) ? startTime : 0,
    method: e.request?.method ?? 'GET',
    url,
    ...splitUrl(url),
    status: status || undefined,
    statusText: e.response?.statusText,
    mimeType: mimeOf(e),
    resourceType: typeof e._resourceType === 'string' ? e._resourceType : undefined,
    protocol: normalizeProtocol(e.response?.httpVersion || e.request?.httpVersion),
    transport: typeof e._transport === 'string' ? (e._transport as ExchangeSummary['transport']) : undefined,
    requestSize,
    responseSize,
    duration: num(e.time),
    timings: harTimings(e),
    state: failed ? 'error' : 'complete',
    error: failed ? { code: typeof e._errorCode === 'string' ? e._errorCode : 'HAR_ERROR', message: errorText ?? 'No response (status 0)' } : undefined,
    connection: e.connection !== undefined ? String(e.connection) : undefined,
    serverIPAddress: e.serverIPAddress || undefined,
  };
}

/** Rows of a whole HAR log, in file order; row `h<i>` is entry `i`. */
export function harToRows(log: Pick<HarLog, 'entries'>): ExchangeSummary[] {
  return (log.entries ?? []).map(harEntryToRow);
}

export function harEntryIndex(id: string): number {
  return /^h\d+$/.test(id) ? Number(id.slice(1)) : -1;
}

const headers = (list: Array<{ name: string; value: string }> | undefined): HeaderList => (list ?? []).map((h) => [h.name, h.value]);

export function harEntryDetail(e: HarEntry, index: number): ExchangeDetail {
  const clientTimings = e._clientTimings as ExchangeDetail['clientTimings'] | undefined;
  return {
    summary: harEntryToRow(e, index),
    request: {
      httpVersion: e.request?.httpVersion ?? '',
      headers: headers(e.request?.headers),
      bodySize: num(e.request?.bodySize),
      bodyTruncated: false,
    },
    response: e.response
      ? {
          httpVersion: e.response.httpVersion ?? '',
          headers: headers(e.response.headers),
          bodySize: num(e.response.bodySize),
          bodyTruncated: Boolean(e.response.content?._truncated),
        }
      : undefined,
    clientTimings,
    nagle: typeof e._nagle === 'boolean' ? e._nagle : undefined,
    retries: typeof e._retries === 'number' ? e._retries : undefined,
    upstreamConnectionNew: typeof e._upstreamConnectionNew === 'boolean' ? e._upstreamConnectionNew : undefined,
  };
}

const TEXTY = /^(text\/|application\/(json|javascript|ecmascript|xml|xhtml\+xml|x-www-form-urlencoded|graphql|ld\+json|manifest\+json)|image\/svg\+xml)|\+json$|\+xml$/;

/** A HAR body as a BodyView: HAR content is already decoded; base64 text is turned back into text. */
export function harBody(e: HarEntry, side: 'request' | 'response'): BodyView {
  if (side === 'request') {
    const pd = e.request?.postData;
    const text = pd?.text ?? (pd?.params ? pd.params.map((p) => `${p.name}=${p.value ?? ''}`).join('&') : '');
    return {
      kind: text ? 'text' : 'none',
      data: text,
      mimeType: (pd?.mimeType ?? '').split(';')[0]!.trim(),
      wireSize: num(e.request?.bodySize, text.length),
      decodedSize: text.length,
      captureTruncated: false,
      displayTruncated: false,
    };
  }
  const c = e.response?.content;
  const mimeType = mimeOf(e);
  const base = { mimeType, wireSize: num(e.response?.bodySize), decodedSize: num(c?.size, 0), captureTruncated: Boolean(c?._truncated), displayTruncated: false };
  if (!c || typeof c.text !== 'string' || c.text === '') return { ...base, kind: 'none', data: '' };
  // The recorder keeps an undecodable body as its raw (encoded) bytes and says why: show them as bytes, with the reason.
  const failed = (c as { _decodingError?: unknown })._decodingError;
  if (typeof failed === 'string') {
    const raw = c.encoding === 'base64' ? c.text.replace(/\s+/g, '') : bytesToBase64(new TextEncoder().encode(c.text));
    return { ...base, kind: 'base64', data: raw, decodeError: decodeFailureNote(undefined, failed) };
  }
  if (c.encoding === 'base64') {
    if (TEXTY.test(mimeType)) {
      try {
        return { ...base, kind: 'text', data: new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(c.text)) };
      } catch {
        // Not UTF-8 after all (or bad base64): show it as binary.
      }
    }
    return { ...base, kind: 'base64', data: c.text.replace(/\s+/g, '') };
  }
  return { ...base, kind: 'text', data: c.text };
}
