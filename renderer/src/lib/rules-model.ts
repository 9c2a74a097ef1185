/**
 * The Rules view's logic, kept out of React: list edits (move, toggle, delete, put),
 * one-line summaries, the form (the common matcher fields and one action of each kind)
 * to and from a rule without losing what the form does not show, and "Mock this
 * response": a mock rule prefilled from a recorded exchange.
 */
import type { Action, BodyView, ExchangeDetail, ExchangeSummary, Rule } from '../../../proxy/src/api/contract';
import type { HeaderEdits, MockAction } from '../../../proxy/src/rules/types';

/** The rules with the one at `index` moved by `delta` (clamped to the list). */
export function moveRule(rules: Rule[], index: number, delta: number): Rule[] {
  const to = Math.max(0, Math.min(rules.length - 1, index + delta));
  if (index < 0 || index >= rules.length || to === index) return rules;
  const out = rules.slice();
  const [r] = out.splice(index, 1);
  out.splice(to, 0, r!);
  return out;
}

export function toggleRule(rules: Rule[], id: string): Rule[] {
  return rules.map((r) => (r.id === id ? { ...r, enabled: r.enabled === false } : r));
}

export function deleteRule(rules: Rule[], id: string): Rule[] {
  return rules.filter((r) => r.id !== id);
}

/** Replaces the rule that had id `was` in place (an edit may change the id), or appends a new one. */
export function putRule(rules: Rule[], rule: Rule, was?: string): Rule[] {
  const i = was === undefined ? -1 : rules.findIndex((r) => r.id === was);
  if (i < 0) return [...rules, rule];
  const out = rules.slice();
  out[i] = rule;
  return out;
}

/** `base`, or `base-2`, `base-3`… whichever no rule has yet. */
export function uniqueRuleId(rules: Rule[], base: string): string {
  const ids = new Set(rules.map((r) => r.id));
  const clean = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'rule';
  if (!ids.has(clean)) return clean;
  for (let n = 2; ; n++) if (!ids.has(`${clean}-${n}`)) return `${clean}-${n}`;
}

function patternText(p: unknown): string {
  if (typeof p === 'string') return p;
  if (p && typeof p === 'object' && 'regex' in p) return `/${String((p as { regex: unknown }).regex)}/`;
  return '';
}

/** e.g. `GET api.test /user` (`any request` for an empty matcher; other conditions as `+ query`). */
export function matchSummary(rule: Rule): string {
  const m = rule.match ?? {};
  const parts: string[] = [];
  if (m.method) parts.push(Array.isArray(m.method) ? m.method.join('|') : m.method);
  if (m.scheme) parts.push(`${m.scheme}:`);
  if (m.host) parts.push(patternText(m.host));
  if (m.port !== undefined) parts.push(`:${Array.isArray(m.port) ? m.port.join('|') : m.port}`);
  if (m.path) parts.push(patternText(m.path));
  const more = (['query', 'headers', 'body', 'httpVersion', 'filter'] as const).filter((k) => m[k] !== undefined);
  if (more.length) parts.push(`+ ${more.join(', ')}`);
  return parts.length ? parts.join(' ') : 'any request';
}

/** e.g. `mock 200`, `delay 300 ms before response`, `fault reset`, `throttle slow-4g`. */
export function actionSummary(a: Action): string {
  switch (a.type) {
    case 'mock':
      return `mock ${a.status ?? 200}`;
    case 'delay':
      return `delay ${a.ms} ms before ${a.before}`;
    case 'fault':
      return `fault ${a.fault}`;
    case 'throttle':
      return a.profile ? `throttle ${a.profile}` : `throttle ${a.downloadKbps ?? '–'}/${a.uploadKbps ?? '–'} kbit/s`;
    case 'rewriteRequest':
      return 'rewrite request';
    case 'rewriteResponse':
      return 'rewrite response';
    case 'breakpoint':
      return `breakpoint on ${a.on}`;
  }
}

/** What the form edits. Header lists are text, one `Name: value` a line. */
export interface RuleForm {
  id: string;
  name: string;
  enabled: boolean;
  method: string;
  host: string;
  path: string;
  mock: { on: boolean; status: string; headers: string; body: string };
  headers: { on: boolean; set: string; remove: string };
  delay: { on: boolean; ms: string; before: 'request' | 'response' };
  fault: { on: boolean; fault: 'close' | 'reset' | 'timeout' | 'trickle' | 'truncate' };
  throttle: { on: boolean; profile: string };
}

function linesFrom(h: Record<string, string> | undefined): string {
  return Object.entries(h ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** `Name: value` lines to a record (blank lines skipped; a line without a colon is a header with an empty value). */
export function headerRecord(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const i = line.indexOf(':');
    const name = (i < 0 ? line : line.slice(0, i)).trim();
    if (name) out[name] = i < 0 ? '' : line.slice(i + 1).trim();
  }
  return out;
}

/** The form of a rule: plain matcher fields (a regex pattern is left to the JSON editor) and the first action of each kind. */
export function formFromRule(rule: Rule): RuleForm {
  const find = <T extends Action['type']>(t: T) => rule.actions.find((a) => a.type === t) as Extract<Action, { type: T }> | undefined;
  const mock = find('mock');
  const rw = find('rewriteResponse');
  const delay = find('delay');
  const fault = find('fault');
  const throttle = find('throttle');
  const m = rule.match ?? {};
  return {
    id: rule.id,
    name: rule.name ?? '',
    enabled: rule.enabled !== false,
    method: typeof m.method === 'string' ? m.method : '',
    host: typeof m.host === 'string' ? m.host : '',
    path: typeof m.path === 'string' ? m.path : '',
    // A mock from a HAR entry (`har`) shows an empty status and body: the recorded ones apply unless typed here.
    mock: {
      on: Boolean(mock),
      status: mock?.status !== undefined ? String(mock.status) : mock?.har ? '' : '200',
      headers: linesFrom(mock?.headers),
      body: mock?.body ?? '',
    },
    headers: { on: Boolean(rw?.headers), set: linesFrom(rw?.headers?.set), remove: (rw?.headers?.remove ?? []).join(', ') },
    delay: { on: Boolean(delay), ms: String(delay?.ms ?? 300), before: delay?.before ?? 'response' },
    fault: { on: Boolean(fault), fault: fault?.fault ?? 'reset' },
    throttle: { on: Boolean(throttle), profile: throttle?.profile ?? 'slow-4g' },
  };
}

/** A number field as typed: the number, or the text itself so the validator names the field ("must be integer"). */
function num(text: string): number {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : (text as unknown as number);
}

function formAction(f: RuleForm, type: Action['type'], old: Action | undefined): Action | undefined {
  switch (type) {
    case 'mock': {
      if (!f.mock.on) return undefined;
      const prev = old?.type === 'mock' ? old : undefined;
      const headers = headerRecord(f.mock.headers);
      const out: MockAction = { ...prev, type: 'mock', status: num(f.mock.status), body: f.mock.body };
      if (Object.keys(headers).length) out.headers = headers;
      else delete out.headers;
      delete out.bodyFile;
      // A recorded response stays the source until a body is typed; its status until one is.
      if (prev?.har && f.mock.status.trim() === '') delete out.status;
      if (prev?.har && f.mock.body === '') delete out.body;
      else delete out.har;
      return out;
    }
    case 'rewriteResponse': {
      const prev = old?.type === 'rewriteResponse' ? old : undefined;
      if (!f.headers.on) {
        // Only the headers are the form's: other edits of this action (body, one-clicks) stay.
        if (!prev) return undefined;
        const { headers: _h, ...rest } = prev;
        return Object.keys(rest).length > 1 ? rest : undefined;
      }
      const set = headerRecord(f.headers.set);
      const remove = f.headers.remove
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean);
      const headers: HeaderEdits = { ...prev?.headers, set, remove };
      if (!Object.keys(set).length) delete headers.set;
      if (!remove.length) delete headers.remove;
      return { ...prev, type: 'rewriteResponse', headers };
    }
    case 'delay':
      return f.delay.on ? { type: 'delay', before: f.delay.before, ms: num(f.delay.ms) } : undefined;
    case 'fault':
      return f.fault.on ? { ...(old?.type === 'fault' ? old : {}), type: 'fault', fault: f.fault.fault } : undefined;
    case 'throttle':
      return f.throttle.on ? { type: 'throttle', profile: f.throttle.profile } : undefined;
    default:
      return old;
  }
}

const FORM_KINDS: Array<Action['type']> = ['mock', 'rewriteResponse', 'delay', 'fault', 'throttle'];

/** The rule the form describes, over `base` (what the JSON editor added stays: other match fields, other actions). */
export function ruleFromForm(f: RuleForm, base?: Rule): Rule {
  const match = { ...base?.match };
  const setOrDrop = (key: 'method' | 'host' | 'path', v: string, keepRegex: boolean) => {
    const t = v.trim();
    if (t) match[key] = key === 'method' ? t.toUpperCase() : t;
    else if (!keepRegex || typeof match[key] === 'string' || Array.isArray(match[key])) delete match[key];
  };
  setOrDrop('method', f.method, false);
  setOrDrop('host', f.host, true);
  setOrDrop('path', f.path, true);
  const actions = (base?.actions ?? []).slice();
  for (const kind of FORM_KINDS) {
    const i = actions.findIndex((a) => a.type === kind);
    const next = formAction(f, kind, i >= 0 ? actions[i] : undefined);
    if (i >= 0) {
      if (next) actions[i] = next;
      else actions.splice(i, 1);
    } else if (next) actions.push(next);
  }
  const rule: Rule = { ...base, id: f.id.trim(), match, actions };
  if (f.name.trim()) rule.name = f.name.trim();
  else delete rule.name;
  if (f.enabled) delete rule.enabled;
  else rule.enabled = false;
  return rule;
}

export function emptyRule(rules: Rule[]): Rule {
  return { id: uniqueRuleId(rules, 'rule'), match: {}, actions: [{ type: 'mock', status: 200, body: '' }] };
}

/** Headers a mock must not copy: the proxy sets the length, the body is sent decoded, HTTP/2 pseudo-headers are not headers. */
const NOT_COPIED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/** What a rule made from a recorded exchange matches: its method, host and path (query left out, so any query matches). */
export function matchFromExchange(s: ExchangeSummary): { method: string; host: string; path: string } {
  let host = s.host;
  let path = s.path.split('?')[0] || '/';
  try {
    const u = new URL(s.url);
    host = u.hostname;
    path = u.pathname;
  } catch {
    // A session's URL may be cut or odd: the row's host and path do.
  }
  return { method: s.method, host, path };
}

/**
 * A mock rule answering like `detail` did: its method, host and path (matchFromExchange),
 * recorded status, headers and decoded text body. A binary body cannot be
 * a text mock: it is left empty and `note` says so.
 */
export function mockFromExchange(detail: ExchangeDetail, body: BodyView | undefined, rules: Rule[]): { rule: Rule; note?: string } {
  const s = detail.summary;
  const { host, path } = matchFromExchange(s);
  const headers: Record<string, string> = {};
  for (const [name, value] of detail.response?.headers ?? []) {
    if (name.startsWith(':') || NOT_COPIED.has(name.toLowerCase())) continue;
    headers[name] = value;
  }
  let note: string | undefined;
  let text = '';
  if (body?.kind === 'text' && !body.displayTruncated && !body.captureTruncated) text = body.data;
  else if (body?.kind === 'base64') note = 'The recorded body is binary: a mock body is text, so it was left empty.';
  else if (body && body.kind !== 'none') note = 'Only part of the recorded body is known: the mock body was left empty.';
  const rule: Rule = {
    id: uniqueRuleId(rules, `mock-${host}${path}`.slice(0, 60)),
    name: `Mock ${s.method} ${host}${path}`.slice(0, 120),
    match: matchFromExchange(s),
    actions: [{ type: 'mock', status: s.status ?? 200, ...(Object.keys(headers).length ? { headers } : {}), body: text }],
  };
  return note ? { rule, note } : { rule };
}

/**
 * "Rewrite this" on a Traffic row: a response rewrite of this request, its header edits
 * left for the user to fill (the form shows them switched on and empty).
 */
export function rewriteFromExchange(s: ExchangeSummary, rules: Rule[]): { rule: Rule; note: string } {
  const match = matchFromExchange(s);
  return {
    rule: {
      id: uniqueRuleId(rules, `rewrite-${match.host}${match.path}`.slice(0, 60)),
      name: `Rewrite ${s.method} ${match.host}${match.path}`.slice(0, 120),
      match,
      actions: [{ type: 'rewriteResponse', headers: {} }],
    },
    note: 'Set or remove response headers below; body edits and the request side are in JSON.',
  };
}

/** "Add breakpoint" on a Traffic row: pause this request before it goes upstream (the JSON editor can make it `response`). */
export function breakpointFromExchange(s: ExchangeSummary, rules: Rule[]): { rule: Rule; note: string } {
  const match = matchFromExchange(s);
  return {
    rule: {
      id: uniqueRuleId(rules, `break-${match.host}${match.path}`.slice(0, 60)),
      name: `Break ${s.method} ${match.host}${match.path}`.slice(0, 120),
      match,
      actions: [{ type: 'breakpoint', on: 'request' }],
    },
    note: 'Pauses the request before it goes upstream; set "on": "response" in JSON to pause the response instead.',
  };
}
