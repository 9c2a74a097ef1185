/**
 * HAR 1.2 as the UI reads it (http://www.softwareishard.com/blog/har-12-spec/).
 *
 * Types only, no runtime code: the API contract and the renderer both import
 * this file, and the renderer must never pull Node modules in. Fields that
 * other tools often omit are optional; vendor `_` fields are allowed anywhere.
 */
export interface HarNameValue {
  name: string;
  value: string;
  [vendor: `_${string}`]: unknown;
}

export interface HarContent {
  size: number;
  compression?: number;
  mimeType?: string;
  text?: string;
  /** `base64` when `text` holds base64 (binary bodies). */
  encoding?: string;
  [vendor: `_${string}`]: unknown;
}

export interface HarPostData {
  mimeType?: string;
  text?: string;
  params?: Array<{ name: string; value?: string; fileName?: string; contentType?: string }>;
  [vendor: `_${string}`]: unknown;
}

export interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  headers: HarNameValue[];
  queryString?: HarNameValue[];
  cookies?: unknown[];
  postData?: HarPostData;
  headersSize?: number;
  bodySize?: number;
  [vendor: `_${string}`]: unknown;
}

export interface HarResponse {
  status: number;
  statusText?: string;
  httpVersion: string;
  headers: HarNameValue[];
  cookies?: unknown[];
  content: HarContent;
  redirectURL?: string;
  headersSize?: number;
  bodySize?: number;
  /** Chrome / Netlens: the failure text of a request that got no response. */
  _error?: string | null;
  [vendor: `_${string}`]: unknown;
}

/** HAR 1.2 timings, ms; -1 = not applicable; `ssl` is inside `connect`. */
export interface HarTimings {
  blocked?: number;
  dns?: number;
  connect?: number;
  ssl?: number;
  send: number;
  wait: number;
  receive: number;
  [vendor: `_${string}`]: unknown;
}

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache?: unknown;
  timings: HarTimings;
  serverIPAddress?: string;
  connection?: string;
  _resourceType?: string;
  [vendor: `_${string}`]: unknown;
}

export interface HarPage {
  startedDateTime: string;
  id: string;
  title: string;
  pageTimings?: { onContentLoad?: number; onLoad?: number };
  [vendor: `_${string}`]: unknown;
}

export interface HarLog {
  version: string;
  creator: { name: string; version: string };
  browser?: { name: string; version: string };
  pages?: HarPage[];
  entries: HarEntry[];
  comment?: string;
  [vendor: `_${string}`]: unknown;
}

export interface Har {
  log: HarLog;
}
