/**
 * One request to an origin and its response, as the upstream leg sees them. Its own
 * module so forward.ts and the special paths it delegates to (asterisk.ts) share them
 * without importing each other.
 */
import type { Readable } from 'node:stream';
import type { ExchangeTimestamps, HttpProtocol, RawHeaders } from '../model.js';
import type { ConnectionInfo } from './pool.js';

export interface UpstreamRequest {
  method: string;
  url: URL;
  /** Headers to send (hop-by-hop already removed; includes Host for HTTP/1.1). */
  headers: RawHeaders;
  /** The request body stream, or null when the request has none. */
  body: Readable | null;
  /** Called with each body chunk as it is forwarded (for capture). */
  onBodyChunk?: (chunk: Buffer) => void;
  timestamps: ExchangeTimestamps;
  /** The exchange's id: tags its HTTP/2 stream's frames in the socket timeline. */
  exchangeId?: string;
  timeoutMs: number;
  retries: number;
  /**
   * The request target to send instead of the URL's path: `*` for an asterisk-form
   * `OPTIONS *` (RFC 9112 §3.2.4), which a URL cannot hold.
   */
  path?: string;
}

export interface UpstreamResponse {
  status: number;
  statusText: string;
  headers: RawHeaders;
  protocol: HttpProtocol;
  body: Readable;
  connection: ConnectionInfo;
  newConnection: boolean;
  serverIPAddress?: string;
  retries: number;
  /** Aborts the upstream request (client went away). */
  abort(): void;
  /**
   * Asked when the body stream ends: an error if that end was not the origin's
   * (an HTTP/2 stream ends, without an error, when its session is torn down mid-body).
   */
  incomplete?(): Error | undefined;
}
