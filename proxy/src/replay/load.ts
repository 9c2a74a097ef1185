/**
 * Reading a HAR for replay: the file must be a valid HAR (har/reader.ts) and
 * hold at least one entry that can be replayed, i.e. a real request with a
 * response (failed requests are recorded with `_error`, and status 0 or the proxy's 502; tunnels and
 * WebSocket upgrades have no response to serve or resend).
 */
import { formatIssue, readHarFile } from '../har/reader.js';
import type { Har, HarEntry } from '../har/types.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import type { MatchRequest } from './matcher.js';

/** Why an entry is left out of a replay, or undefined when it can be replayed. */
export function notReplayable(e: HarEntry): string | undefined {
  if (!e.response || !(e.response.status > 0)) return 'no response (the request failed when recorded)';
  // The proxy's own 502 for an origin it could not reach (X-Netlens-Error; `_error` says why): not the origin's answer.
  if (e._error && e.response.headers?.some((h) => h.name.toLowerCase() === 'x-netlens-error'))
    return 'no response (the request failed when recorded)';
  if (e.request.method.toUpperCase() === 'CONNECT' || e._transport === 'tunnel') return 'a CONNECT tunnel, not a request';
  if (e._websocket) return 'a WebSocket upgrade';
  if (!/^https?:\/\//i.test(e.request.url)) return `not an http(s) URL (${e.request.url.slice(0, 80)})`;
  try {
    new URL(e.request.url);
  } catch {
    return 'an invalid URL';
  }
  return undefined;
}

export interface ReplayEntry {
  /** Index in log.entries. */
  index: number;
  entry: HarEntry;
}

/** The replayable entries of a HAR; throws NL_REPLAY_NO_RESPONSES when there are none. */
export function replayableEntries(har: Har, source = 'the HAR'): ReplayEntry[] {
  const out: ReplayEntry[] = [];
  har.log.entries.forEach((entry, index) => {
    if (!notReplayable(entry)) out.push({ index, entry });
  });
  if (out.length === 0) {
    const n = har.log.entries.length;
    throw new NetlensError(
      ErrorCodes.REPLAY_NO_RESPONSES,
      n === 0
        ? `${source} has no entries: nothing to replay. Record a session first (netlens proxy --har FILE, or netlens record URL).`
        : `${source} has ${n} entr${n === 1 ? 'y' : 'ies'} but none with a response to replay (${notReplayable(har.log.entries[0])}). Record the session again while the origin is up.`,
    );
  }
  return out;
}

/** Reads and validates a HAR file for replay; NL_HAR_INVALID with the first problem when it cannot be used. */
export async function loadReplayHar(file: string): Promise<{ har: Har; entries: ReplayEntry[]; warnings: string[] }> {
  const read = await readHarFile(file);
  if (!read.har) {
    const first = read.errors[0];
    throw new NetlensError(
      ErrorCodes.HAR_INVALID,
      `${file} cannot be replayed: ${first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'not a HAR'}. Check it with "netlens har validate ${file}".`,
    );
  }
  return { har: read.har, entries: replayableEntries(read.har, file), warnings: read.warnings.map((w) => formatIssue('warning', w)) };
}

/** The recorded request body as bytes (HAR postData.text; Netlens marks binary bodies `_encoding: base64`). */
export function recordedRequestBody(e: HarEntry): Buffer | null {
  const p = e.request.postData;
  if (!p || typeof p.text !== 'string' || p.text.length === 0) return null;
  return p._encoding === 'base64' ? Buffer.from(p.text, 'base64') : Buffer.from(p.text, 'utf8');
}

/** The recorded response body as bytes (content.text, base64 when `encoding` says so). */
export function recordedResponseBody(e: HarEntry): Buffer {
  const c = e.response.content;
  if (!c || typeof c.text !== 'string') return Buffer.alloc(0);
  return c.encoding === 'base64' ? Buffer.from(c.text, 'base64') : Buffer.from(c.text, 'utf8');
}

export function recordedMatchRequest(e: HarEntry): MatchRequest {
  return {
    method: e.request.method,
    url: e.request.url,
    headers: (e.request.headers ?? []).map((h) => [h.name, h.value]),
    body: recordedRequestBody(e),
  };
}
