import { describe, expect, it } from 'vitest';
import type { ExchangeSummary } from '../../../proxy/src/api/contract';
import { EMPTY_FILTER, compileFilter, filterRows, hostCounts, parseSize, sortRows, statusClassOf } from './filters';
import { resourceTypeOf } from './resource-type';

function row(p: Partial<ExchangeSummary>): ExchangeSummary {
  const url = p.url ?? 'https://a.example/';
  const u = new URL(url);
  return {
    id: p.id ?? url,
    startedDateTime: '',
    startTime: 0,
    method: 'GET',
    url,
    host: u.host,
    path: u.pathname + u.search,
    mimeType: '',
    protocol: 'h2',
    requestSize: 0,
    responseSize: 100,
    duration: 10,
    state: 'complete',
    status: 200,
    ...p,
  };
}

const rows = [
  row({ id: '1', url: 'https://a.example/index.html', mimeType: 'text/html' }),
  row({ id: '2', url: 'https://a.example/app.js', mimeType: 'application/javascript', responseSize: 50_000 }),
  row({ id: '3', url: 'https://cdn.example/cat.png', mimeType: 'image/png', status: 404 }),
  row({ id: '4', url: 'https://api.example/v1/items', method: 'POST', mimeType: 'application/json', status: 503 }),
  row({ id: '5', url: 'https://api.example/v1/slow', state: 'pending', status: undefined }),
  row({
    id: '6',
    url: 'https://down.example/',
    state: 'error',
    status: undefined,
    error: { code: 'NL_UPSTREAM_REFUSED', message: 'refused' },
  }),
];
const ids = (f: Partial<typeof EMPTY_FILTER>) => filterRows(rows, { ...EMPTY_FILTER, ...f }).map((r) => r.id);

describe('traffic filters', () => {
  it('classifies status, pending and errors', () => {
    expect(rows.map(statusClassOf)).toEqual(['2xx', '2xx', '4xx', '5xx', 'pending', 'error']);
  });

  it('derives resource types from mime, Chrome _resourceType, or extension', () => {
    expect(rows.slice(0, 4).map(resourceTypeOf)).toEqual(['document', 'script', 'image', 'fetch']);
    expect(resourceTypeOf({ mimeType: '', path: '/f.woff2' })).toBe('font');
    expect(resourceTypeOf({ mimeType: 'text/plain', resourceType: 'xhr', path: '/' })).toBe('fetch');
  });

  it('filters by every control, combined with AND', () => {
    expect(ids({})).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(ids({ methods: ['post'] })).toEqual(['4']);
    expect(ids({ statusClasses: ['4xx', '5xx'] })).toEqual(['3', '4']);
    expect(ids({ statusClasses: ['error', 'pending'] })).toEqual(['5', '6']);
    expect(ids({ types: ['image', 'script'] })).toEqual(['2', '3']);
    expect(ids({ host: 'api.example' })).toEqual(['4', '5']);
    expect(ids({ host: 'api.example', methods: ['GET'] })).toEqual(['5']);
  });

  it('understands the text query: terms, negation, key:value, regex', () => {
    expect(ids({ text: 'example/v1' })).toEqual(['4', '5']);
    expect(ids({ text: 'api -slow' })).toEqual(['4']);
    expect(ids({ text: 'status:404' })).toEqual(['3']);
    expect(ids({ text: 'status:5xx' })).toEqual(['4']);
    expect(ids({ text: 'method:post' })).toEqual(['4']);
    expect(ids({ text: 'domain:cdn' })).toEqual(['3']);
    expect(ids({ text: 'type:xhr' })).toEqual(['4']);
    expect(ids({ text: 'larger-than:10k' })).toEqual(['2']);
    expect(ids({ text: '/\\.(js|png)$/' })).toEqual(['2', '3']);
    expect(ids({ text: '/[unclosed/' })).toEqual([]);
    expect(compileFilter(EMPTY_FILTER)(rows[0]!)).toBe(true);
  });

  it('parses sizes', () => {
    expect(parseSize('10k')).toBe(10_000);
    expect(parseSize('2MB')).toBe(2_000_000);
    expect(parseSize('x')).toBeUndefined();
  });

  it('counts hosts and sorts stably', () => {
    expect(hostCounts(rows)[0]).toEqual({ host: 'a.example', count: 2 });
    expect(sortRows(rows, 'size', 'desc')[0]!.id).toBe('2');
    expect(sortRows(rows, 'status', 'asc').map((r) => r.id)).toEqual(['5', '6', '1', '2', '3', '4']);
  });
});
