/**
 * HAR 1.2 as TypeScript types (http://www.softwareishard.com/blog/har-12-spec/),
 * plus the `_` fields Netlens writes. HAR allows custom fields whose names start
 * with `_`; readers must keep the ones they do not know, hence the index
 * signatures.
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
