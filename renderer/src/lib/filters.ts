/**
 * Traffic filters: the filter bar's controls plus a DevTools-like text query.
 *
 * Text query: space-separated terms, all must match. A plain term matches the
 * URL (case-insensitive); `-term` excludes; `key:value` matches a field:
 * `method:POST`, `status:404` or `status:4xx`, `host:example.com`, `type:image`,
 * `mime:json`, `larger-than:10k`. `/regex/` matches the URL.
 */
import type { ExchangeSummary } from '../../../proxy/src/api/contract';
import { resourceTypeOf, type ResourceType } from './resource-type';

export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'error' | 'pending';

export interface TrafficFilter {
  text: string;
  /** Empty = every method. */
  methods: string[];
  /** Empty = every status. */
  statusClasses: StatusClass[];
  /** Empty = every type. */
  types: ResourceType[];
  /** '' = every host. */
  host: string;
}

export const EMPTY_FILTER: TrafficFilter = { text: '', methods: [], statusClasses: [], types: [], host: '' };

export function statusClassOf(row: Pick<ExchangeSummary, 'state' | 'status'>): StatusClass {
  if (row.state === 'error' || row.status === 0) return 'error';
  if (row.status === undefined) return row.state === 'pending' ? 'pending' : 'error';
  const c = Math.floor(row.status / 100);
  return c >= 1 && c <= 5 ? (`${c}xx` as StatusClass) : 'error';
}

/** `10k` → 10000, `2M` → 2000000, `512` → 512. */
export function parseSize(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)b?$/i.exec(s.trim());
  if (!m) return undefined;
  const mult = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * mult;
}

type Pred = (row: ExchangeSummary) => boolean;

function termPredicate(term: string): Pred {
  if (term.length > 2 && term.startsWith('/') && term.endsWith('/')) {
    try {
      const re = new RegExp(term.slice(1, -1), 'i');
      return (r) => re.test(r.url);
    } catch {
      // Not a valid regex: match it literally below.
    }
  }
  const colon = term.indexOf(':');
  if (colon > 0 && !term.startsWith('http')) {
    const key = term.slice(0, colon).toLowerCase();
    const value = term.slice(colon + 1).toLowerCase();
    switch (key) {
      case 'method':
        return (r) => r.method.toLowerCase() === value;
      case 'status':
        return /^[1-5]xx$/.test(value)
          ? (r) => statusClassOf(r) === value
          : (r) => String(r.status ?? '') === value || (value === 'error' && statusClassOf(r) === 'error');
      case 'host':
      case 'domain':
        return (r) => r.host.toLowerCase().includes(value);
      case 'type':
        return (r) => resourceTypeOf(r) === value || (value === 'xhr' && resourceTypeOf(r) === 'fetch');
      case 'mime':
        return (r) => r.mimeType.includes(value);
      case 'larger-than': {
        const n = parseSize(value);
        return n === undefined ? () => true : (r) => r.responseSize > n;
      }
      case 'protocol':
        return (r) => r.protocol.toLowerCase() === value;
      default:
        break;
    }
  }
  const needle = term.toLowerCase();
  return (r) => r.url.toLowerCase().includes(needle);
}

/** Builds one predicate for the whole filter (compiled once, applied to 100k rows). */
export function compileFilter(f: TrafficFilter): Pred {
  const preds: Pred[] = [];
  for (const raw of f.text.trim().split(/\s+/).filter(Boolean)) {
    if (raw.startsWith('-') && raw.length > 1) {
      const p = termPredicate(raw.slice(1));
      preds.push((r) => !p(r));
    } else preds.push(termPredicate(raw));
  }
  if (f.methods.length) {
    const set = new Set(f.methods.map((m) => m.toUpperCase()));
    preds.push((r) => set.has(r.method.toUpperCase()));
  }
  if (f.statusClasses.length) {
    const set = new Set(f.statusClasses);
    preds.push((r) => set.has(statusClassOf(r)));
  }
  if (f.types.length) {
    const set = new Set(f.types);
    preds.push((r) => set.has(resourceTypeOf(r)));
  }
  if (f.host) preds.push((r) => r.host === f.host);
  if (preds.length === 0) return () => true;
  return (r) => preds.every((p) => p(r));
}

export function filterRows(rows: readonly ExchangeSummary[], f: TrafficFilter): ExchangeSummary[] {
  const pred = compileFilter(f);
  return rows.filter(pred);
}

export function isFilterActive(f: TrafficFilter): boolean {
  return f.text.trim() !== '' || f.methods.length > 0 || f.statusClasses.length > 0 || f.types.length > 0 || f.host !== '';
}

/** Hosts by number of requests, most first (the host filter's menu). */
export function hostCounts(rows: readonly ExchangeSummary[]): Array<{ host: string; count: number }> {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.host, (counts.get(r.host) ?? 0) + 1);
  return [...counts].map(([host, count]) => ({ host, count })).sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
}

export type SortKey = 'start' | 'name' | 'method' | 'status' | 'host' | 'type' | 'protocol' | 'size' | 'time';

/** Stable sort of rows by a column (the Traffic list's header clicks). */
export function sortRows(rows: readonly ExchangeSummary[], key: SortKey, dir: 'asc' | 'desc'): ExchangeSummary[] {
  const sign = dir === 'asc' ? 1 : -1;
  const value = (r: ExchangeSummary): number | string => {
    switch (key) {
      case 'start':
        return r.startTime;
      case 'name':
        return r.path;
      case 'method':
        return r.method;
      case 'status':
        return r.status ?? -1;
      case 'host':
        return r.host;
      case 'type':
        return resourceTypeOf(r);
      case 'protocol':
        return r.protocol;
      case 'size':
        return r.responseSize;
      case 'time':
        return r.duration;
    }
  };
  return rows
    .map((r, i) => ({ r, i, v: value(r) }))
    .sort((a, b) => (a.v < b.v ? -sign : a.v > b.v ? sign : a.i - b.i))
    .map((x) => x.r);
}
