/**
 * Matchers compiled once per rules set into closures: per request only string
 * tests run (no RegExp construction; a JSON body is parsed once for all rules). Conditions are tested cheapest first.
 */
import type { JsonBodyCondition, Matcher, Pattern } from './types.js';
import { compileJsonPath, jsonEqual, selectJson } from './json-path.js';
import { compileFilter } from './filter-query.js';
import { RequestView } from './request-view.js';

export { RequestView };

export type CompiledMatcher = (r: RequestView) => boolean;

/** Glob to an anchored regex: `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string, flags = ''): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*+/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, flags);
}

function patternTest(p: Pattern, caseInsensitive: boolean): (s: string) => boolean {
  if (typeof p === 'string') {
    if (!/[*?]/.test(p)) {
      if (!caseInsensitive) return (s) => s === p;
      const lower = p.toLowerCase();
      return (s) => s.toLowerCase() === lower;
    }
    // One `*` and no `?` (`*.example.com`, `/api/*`, `/static/*.js`): two string comparisons, no regex.
    const star = p.indexOf('*');
    if (!caseInsensitive && !p.includes('?') && star === p.lastIndexOf('*')) {
      const head = p.slice(0, star);
      const tail = p.slice(star + 1);
      const min = head.length + tail.length;
      return (s) => s.length >= min && s.startsWith(head) && s.endsWith(tail);
    }
    const re = globToRegExp(p, caseInsensitive ? 'i' : '');
    return (s) => re.test(s);
  }
  const re = new RegExp(p.regex, p.flags ?? (caseInsensitive ? 'i' : ''));
  return (s) => re.test(s);
}

export function compileMatcher(m: Matcher): CompiledMatcher {
  const tests: CompiledMatcher[] = [];
  if (m.method !== undefined) {
    const set = new Set((Array.isArray(m.method) ? m.method : [m.method]).map((s) => s.toUpperCase()));
    tests.push((r) => set.has(r.method));
  }
  if (m.scheme) {
    const proto = `${m.scheme}:`;
    tests.push((r) => r.protocol === proto);
  }
  if (m.httpVersion) {
    const v = m.httpVersion;
    tests.push((r) => r.input.httpVersion === v);
  }
  if (m.port !== undefined) {
    const ports = new Set(Array.isArray(m.port) ? m.port : [m.port]);
    tests.push((r) => ports.has(r.port));
  }
  if (m.host !== undefined) {
    // Hosts are lower-cased once per request; the pattern is lower-cased here (regexes keep their flags).
    const t = patternTest(typeof m.host === 'string' ? m.host.toLowerCase() : m.host, false);
    tests.push((r) => t(r.host));
  }
  if (m.path !== undefined) {
    const t = patternTest(m.path, false);
    tests.push((r) => t(r.path));
  }
  if (m.query) {
    for (const [name, want] of Object.entries(m.query)) {
      if (want === true) tests.push((r) => r.input.url.searchParams.has(name));
      else if (want === false) tests.push((r) => !r.input.url.searchParams.has(name));
      else if (typeof want === 'string') tests.push((r) => r.input.url.searchParams.getAll(name).includes(want));
      else {
        const re = new RegExp(want.regex);
        tests.push((r) => r.input.url.searchParams.getAll(name).some((v) => re.test(v)));
      }
    }
  }
  for (const h of m.headers ?? []) {
    const lower = h.name.toLowerCase();
    if (h.present === false) {
      tests.push((r) => r.header(lower) === undefined);
      continue;
    }
    const re = h.regex !== undefined ? new RegExp(h.regex, 'i') : undefined;
    const eq = h.equals;
    tests.push((r) => {
      const v = r.header(lower);
      return v !== undefined && (eq === undefined || v === eq) && (re === undefined || re.test(v));
    });
  }
  if (m.filter) {
    const f = compileFilter(m.filter);
    tests.push((r) => f(r));
  }
  if (m.body) {
    const needle = m.body.contains !== undefined ? Buffer.from(m.body.contains) : undefined;
    const re = m.body.regex !== undefined ? new RegExp(m.body.regex) : undefined;
    if (needle || re) {
      tests.push((r) => {
        const b = r.input.body;
        return b !== null && (!needle || b.includes(needle)) && (!re || re.test(b.toString('utf8')));
      });
    }
    if (m.body.json) tests.push(compileJsonCondition(m.body.json));
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

/** A JSON body condition: the path compiled here, the body parsed once per request (RequestView.json). */
function compileJsonCondition(c: JsonBodyCondition): CompiledMatcher {
  const steps = compileJsonPath(c.path);
  const re = c.regex !== undefined ? new RegExp(c.regex) : undefined;
  const has = 'equals' in c;
  const want = c.equals;
  const absent = c.exists === false;
  const ok = (v: unknown): boolean => {
    if (has && !jsonEqual(v, want)) return false;
    if (re && !((typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && re.test(String(v)))) return false;
    return true;
  };
  return (r) => {
    const doc = r.json();
    if (!doc) return false;
    const found = selectJson(doc.value, steps);
    return absent ? found.length === 0 : found.some(ok);
  };
}
