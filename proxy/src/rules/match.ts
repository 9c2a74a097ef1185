/**
 * Matchers compiled once per rules set into closures: per request only string
 * tests run (no parsing, no RegExp construction). Conditions are tested cheapest first.
 */
import type { Matcher, MatchInput, Pattern } from './types.js';
import { compileFilter } from './filter-query.js';

export type CompiledMatcher = (r: MatchInput) => boolean;

/** Glob to an anchored regex: `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string, flags = ''): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, flags);
}

function patternTest(p: Pattern, caseInsensitive: boolean): (s: string) => boolean {
  if (typeof p === 'string') {
    if (!/[*?]/.test(p)) {
      if (!caseInsensitive) return (s) => s === p;
      const lower = p.toLowerCase();
      return (s) => s.toLowerCase() === lower;
    }
    const re = globToRegExp(p, caseInsensitive ? 'i' : '');
    return (s) => re.test(s);
  }
  const re = new RegExp(p.regex, p.flags ?? (caseInsensitive ? 'i' : ''));
  return (s) => re.test(s);
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}

function headerValue(r: MatchInput, lowerName: string): string | undefined {
  for (const [k, v] of r.headers) if (k.length === lowerName.length && k.toLowerCase() === lowerName) return v;
  return undefined;
}

export function compileMatcher(m: Matcher): CompiledMatcher {
  const tests: CompiledMatcher[] = [];
  if (m.method !== undefined) {
    const set = new Set((Array.isArray(m.method) ? m.method : [m.method]).map((s) => s.toUpperCase()));
    tests.push((r) => set.has(r.method.toUpperCase()));
  }
  if (m.scheme) {
    const proto = `${m.scheme}:`;
    tests.push((r) => r.url.protocol === proto);
  }
  if (m.httpVersion) {
    const v = m.httpVersion;
    tests.push((r) => r.httpVersion === v);
  }
  if (m.port !== undefined) {
    const ports = new Set(Array.isArray(m.port) ? m.port : [m.port]);
    tests.push((r) => ports.has(defaultPort(r.url)));
  }
  if (m.host !== undefined) {
    const t = patternTest(m.host, true);
    tests.push((r) => t(r.url.hostname.replace(/^\[|\]$/g, '')));
  }
  if (m.path !== undefined) {
    const t = patternTest(m.path, false);
    tests.push((r) => t(r.url.pathname));
  }
  if (m.query) {
    for (const [name, want] of Object.entries(m.query)) {
      if (want === true) tests.push((r) => r.url.searchParams.has(name));
      else if (want === false) tests.push((r) => !r.url.searchParams.has(name));
      else if (typeof want === 'string') tests.push((r) => r.url.searchParams.getAll(name).includes(want));
      else {
        const re = new RegExp(want.regex);
        tests.push((r) => r.url.searchParams.getAll(name).some((v) => re.test(v)));
      }
    }
  }
  for (const h of m.headers ?? []) {
    const lower = h.name.toLowerCase();
    if (h.present === false) {
      tests.push((r) => headerValue(r, lower) === undefined);
      continue;
    }
    const re = h.regex !== undefined ? new RegExp(h.regex, 'i') : undefined;
    const eq = h.equals;
    tests.push((r) => {
      const v = headerValue(r, lower);
      return v !== undefined && (eq === undefined || v === eq) && (re === undefined || re.test(v));
    });
  }
  if (m.filter) {
    const f = compileFilter(m.filter);
    tests.push((r) => f(r, r.url.href));
  }
  if (m.body) {
    const needle = m.body.contains !== undefined ? Buffer.from(m.body.contains) : undefined;
    const re = m.body.regex !== undefined ? new RegExp(m.body.regex) : undefined;
    tests.push((r) => r.body !== null && (!needle || r.body.includes(needle)) && (!re || re.test(r.body.toString('utf8'))));
  }
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0]!;
  return (r) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(r)) return false;
    return true;
  };
}

/** Whether matching needs the request body read first. */
export function needsBody(m: Matcher): boolean {
  return m.body !== undefined;
}
