/**
 * The rules model: what a rules file holds (docs/rules.md, docs/rules.schema.json).
 * A rule = a matcher + actions; rules are tried in file order and the first that
 * matches wins, unless it says `continue` (then later rules may add their actions).
 */
import type { RawHeaders } from '../model.js';

/** A string pattern: an exact-or-glob string (`*` any run, `?` one char), or `{ regex }`. */
export type Pattern = string | { regex: string; flags?: string };

export interface HeaderCondition {
  name: string;
  /** true (default): the header must be present; false: it must be absent. */
  present?: boolean;
  equals?: string;
  regex?: string;
}

export interface Matcher {
  /** One method or a list (case-insensitive). */
  method?: string | string[];
  scheme?: 'http' | 'https' | 'ws' | 'wss';
  /** Glob (`*.example.com`) or regex; case-insensitive. */
  host?: Pattern;
  port?: number | number[];
  /** Glob over the path without the query (`/api/**` style: `*` matches across `/`), or regex. */
  path?: Pattern;
  /** Each named parameter: `true` present, `false` absent, a string equal, or `{ regex }`. */
  query?: Record<string, boolean | string | { regex: string }>;
  headers?: HeaderCondition[];
  /** Needs the request body (read up to 1 MiB; a larger body never matches). */
  body?: { contains?: string; regex?: string; json?: JsonBodyCondition };
  httpVersion?: 'http/1.0' | 'http/1.1' | 'h2';
  /** A Traffic filter query over the request: `method:POST host:api -png /regex/ word`. */
  filter?: string;
}

/** A value in a JSON request body (json-path.ts); a body that is not JSON never matches. */
export interface JsonBodyCondition {
  /** `$.user.id`, `$['a b'][0]`, `$.items[*].sku`. */
  path: string;
  /** Some value at the path equals this JSON value. */
  equals?: unknown;
  /** Some string (or number, boolean as its JSON text) at the path matches. */
  regex?: string;
  /** true (the default without equals/regex): the path reaches a value; false: it reaches none. */
  exists?: boolean;
}

export interface HeaderEdits {
  /** Added (kept beside existing ones of the same name). */
  add?: Record<string, string>;
  /** Replaces every existing header of that name. */
  set?: Record<string, string>;
  remove?: string[];
}

export interface BodyEdits {
  /** Regex replacements, in order (`$1` references work). */
  replace?: { regex: string; flags?: string; with: string }[];
  /** RFC 7396 JSON merge patch, for JSON bodies. */
  jsonMergePatch?: unknown;
  /** Replace the whole body. */
  text?: string;
}

export interface MockAction {
  type: 'mock';
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** File whose bytes are the body; relative paths are from the rules file's directory. */
  bodyFile?: string;
  /** Answer with a recorded response from a HAR file (its status and headers unless given here, and its body). */
  har?: HarMockSource;
}

/** A HAR entry: the first in `file` (relative like bodyFile) whose request has this exact URL (and method). */
export interface HarMockSource {
  file: string;
  url: string;
  method?: string;
}

export interface RewriteRequestAction {
  type: 'rewriteRequest';
  url?: { scheme?: 'http' | 'https'; host?: string; port?: number; path?: string; query?: Record<string, string | null> };
  headers?: HeaderEdits;
  body?: BodyEdits;
}

export interface RewriteResponseAction {
  type: 'rewriteResponse';
  status?: number;
  headers?: HeaderEdits;
  body?: BodyEdits;
  /** One-click: remove Cache-Control, Expires, ETag, Last-Modified so nothing is cached. */
  stripCacheControl?: boolean;
  /** One-click: Access-Control-Allow-* headers for any origin (the request's Origin echoed). */
  addCors?: boolean;
  /** One-click: a `<script src>` inserted before `</head>` (else at the start) of HTML responses. */
  injectScript?: string;
}

export interface DelayAction {
  type: 'delay';
  /** `request`: before the request goes upstream; `response`: before the response head reaches the client. */
  before: 'request' | 'response';
  ms: number;
}

export interface ThrottleAction {
  type: 'throttle';
  /** A named profile (profiles.ts); explicit figures below override its. */
  profile?: string;
  downloadKbps?: number;
  uploadKbps?: number;
  latencyMs?: number;
}

export interface FaultAction {
  type: 'fault';
  /**
   * close: end the connection with no response; reset: TCP RST / HTTP/2 RST_STREAM; timeout: never answer
   * (held `ms`, default 5 min, then closed); trickle: the response body `bytes` at a time every `intervalMs`;
   * truncate: only the first `bytes` of the response body, then the connection is cut.
   */
  fault: 'close' | 'reset' | 'timeout' | 'trickle' | 'truncate';
  ms?: number;
  bytes?: number;
  intervalMs?: number;
}

export interface BreakpointAction {
  type: 'breakpoint';
  /** `request`: pause before the request goes upstream; `response`: before the response reaches the client. */
  on: 'request' | 'response';
  /** Continue unchanged after this long when nobody resumed it (default 60 s, at most 10 min). */
  timeoutMs?: number;
}

export type Action =
  MockAction | RewriteRequestAction | RewriteResponseAction | DelayAction | ThrottleAction | FaultAction | BreakpointAction;

export interface Rule {
  id: string;
  name?: string;
  enabled?: boolean;
  match: Matcher;
  actions: Action[];
  /** Keep trying later rules after this one matched (first match wins otherwise). */
  continue?: boolean;
}

export interface RulesFile {
  $schema?: string;
  version: 1;
  rules: Rule[];
}

/** What a matcher sees of a request. */
export interface MatchInput {
  method: string;
  url: URL;
  headers: RawHeaders;
  httpVersion: string;
  /** The whole body when the rules need it and it fit; null otherwise. */
  body: Buffer | null;
}

/** What touched an exchange: recorded as `_rules` in the HAR. */
export type { RuleHit } from '../model.js';
