/**
 * The one HAR model of Netlens: HAR 1.2 as TypeScript types
 * (http://www.softwareishard.com/blog/har-12-spec/), plus the `_` fields Netlens
 * writes (docs/har.md says what each means). HAR allows custom fields whose names
 * start with `_`; readers must keep the ones they do not know, hence the index
 * signatures.
 *
 * Types only, importing nothing: the core, the API contract and the renderer all
 * use this file, and the renderer must never pull Node modules in.
 *
 * The interfaces are strict: what Netlens writes and what har/normalize.ts makes
 * of any file it accepted. Data that has not been through normalize.ts (a HAR
 * from another tool, the UI's copy of one) is typed with the `Loose` views below.
 */

export type Extra = { [custom: `_${string}`]: unknown };

export interface HarNameValue extends Extra {
  name: string;
  value: string;
  comment?: string;
}

export interface HarCookie extends Extra {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  /** ISO 8601 or null (session cookie). */
  expires?: string | null;
  httpOnly?: boolean;
  secure?: boolean;
  /** Not in HAR 1.2; Chrome DevTools writes it and so does Netlens. */
  sameSite?: string;
  comment?: string;
}

export interface HarPostParam extends Extra {
  name: string;
  value?: string;
  fileName?: string;
  contentType?: string;
  comment?: string;
}

export interface HarPostData extends Extra {
  mimeType: string;
  text?: string;
  params?: HarPostParam[];
  comment?: string;
  /** Netlens: "base64" when `text` holds base64 (HAR 1.2 has no `encoding` on postData). */
  _encoding?: string;
  /** Netlens: the capture limit cut the body; `text` holds the first `_capturedSize` bytes. */
  _truncated?: boolean;
  _capturedSize?: number;
  /** Netlens: why Content-Encoding could not be undone; `text` holds the raw (encoded) bytes. */
  _decodingError?: string;
}

export interface HarContent extends Extra {
  /** Length of the returned content in bytes (decoded). */
  size: number;
  /** Bytes saved by compression: size - bodySize. */
  compression?: number;
  mimeType: string;
  text?: string;
  /** "base64" for binary bodies. */
  encoding?: string;
  comment?: string;
  /** Netlens: as on HarPostData. */
  _truncated?: boolean;
  _capturedSize?: number;
  _decodingError?: string;
}

export interface HarRequest extends Extra {
  method: string;
  url: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: HarPostData;
  headersSize: number;
  bodySize: number;
  comment?: string;
}

export interface HarResponse extends Extra {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  content: HarContent;
  redirectURL: string;
  headersSize: number;
  bodySize: number;
  comment?: string;
  /** Chrome and Netlens: bytes on the wire, headers included. */
  _transferSize?: number;
  /** Chrome: the failure text of a request that got no response (Netlens writes it on the entry). */
  _error?: string | null;
}

export interface HarTimings extends Extra {
  blocked?: number;
  dns?: number;
  connect?: number;
  send: number;
  wait: number;
  receive: number;
  ssl?: number;
  comment?: string;
}

export interface HarCache extends Extra {
  beforeRequest?: unknown;
  afterRequest?: unknown;
  comment?: string;
}

export interface HarEntry extends Extra {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: HarCache;
  timings: HarTimings;
  serverIPAddress?: string;
  connection?: string;
  comment?: string;
  /** Chrome: the DevTools resource type (document, script, image…). */
  _resourceType?: string;
}

export interface HarPage extends Extra {
  startedDateTime: string;
  id: string;
  title: string;
  pageTimings: { onContentLoad?: number; onLoad?: number; comment?: string } & Extra;
  comment?: string;
}

export interface HarCreator extends Extra {
  name: string;
  version: string;
  comment?: string;
}

export interface HarLog extends Extra {
  version: string;
  creator: HarCreator;
  browser?: HarCreator;
  pages?: HarPage[];
  entries: HarEntry[];
  comment?: string;
}

export interface Har {
  log: HarLog;
}

/** Everything of a HAR except its entries: what a streaming writer needs up front. */
export interface HarHead {
  creator: HarCreator;
  browser?: HarCreator;
  pages: HarPage[];
  comment?: string;
  /** Custom `_` fields of `log`. */
  extra?: Extra;
}

/**
 * A HAR value as some tool wrote it, before har/normalize.ts: any field may be
 * missing (Firefox and Charles omit sizes, cookies, cache; failed requests may
 * have no response). The types are a hint, not a promise: a file can hold any
 * JSON, so code reading a Loose value still checks each value's type.
 */
export type Loose<T> = T extends readonly (infer U)[] ? Array<Loose<U>> : T extends object ? { [K in keyof T]?: Loose<T[K]> } : T;

export type LooseHar = Loose<Har>;
export type LooseHarLog = Loose<HarLog>;
export type LooseHarEntry = Loose<HarEntry>;
export type LooseHarPage = Loose<HarPage>;
