/**
 * The Traffic filter language (renderer/src/lib/filters.ts) for request matching: space-separated
 * terms, all must match; a plain term is a case-insensitive URL substring, `-term` excludes,
 * `/regex/` matches the URL, `method:POST`, `host:api`, `scheme:https`, `path:/v1`. Response-side
 * keys of the Traffic bar (status, type, mime, larger-than) cannot be known before the request
 * is forwarded, so they are refused with a message saying so.
 */
import type { RequestView } from './request-view.js';

type Test = (r: RequestView) => boolean;

const REQUEST_KEYS: Record<string, (v: string) => Test> = {
  method: (v) => {
    const upper = v.toUpperCase();
    return (r) => r.method === upper;
  },
  host: (v) => {
    const lower = v.toLowerCase();
    return (r) => r.host.includes(lower);
  },
  scheme: (v) => {
    const proto = `${v.toLowerCase()}:`;
    return (r) => r.protocol === proto;
  },
  path: (v) => (r) => r.path.includes(v),
};

/** Compiles a query to one test; throws an Error whose message says which term is wrong. */
export function compileFilter(query: string): Test {
  const tests: Test[] = [];
  for (const raw of query.trim().split(/\s+/).filter(Boolean)) {
    const negate = raw.startsWith('-') && raw.length > 1;
    const term = negate ? raw.slice(1) : raw;
    let test: Test;
    const re = /^\/(.+)\/([a-z]*)$/.exec(term);
    const kv = /^([a-z-]+):(.+)$/i.exec(term);
    if (re) {
      const regex = new RegExp(re[1]!, re[2]!.includes('i') ? re[2] : `${re[2]}i`);
      test = (r) => regex.test(r.input.url.href);
    } else if (kv && !/^https?$/i.test(kv[1]!)) {
      const make = REQUEST_KEYS[kv[1]!.toLowerCase()];
      if (!make) throw new Error(`"${kv[1]}:" is not a request field (use method:, host:, scheme:, path:, /regex/ or words)`);
      test = make(kv[2]!);
    } else {
      const needle = term.toLowerCase();
      test = (r) => r.hrefLower.includes(needle);
    }
    tests.push(negate ? (r) => !test(r) : test);
  }
  return (r) => {
    for (const t of tests) if (!t(r)) return false;
    return true;
  };
}
