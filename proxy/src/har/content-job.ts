/**
 * The JSON of a large or compressed body for an exchange's journal line, made without holding the event loop: the
 * body is decoded on libuv's thread pool (decodeContentAsync), then escaped or base64-encoded one slice per
 * event-loop turn. The bytes are those of JSON.stringify(harContent(x)) and JSON.stringify(harPostData(x.request))
 * (content-job.test.ts holds them to it), so the line is the one the recorder would have written at once.
 *
 * Why: the recorder made them on the event loop as the exchange finished. A 4 MiB text body held the loop for
 * ~19 ms, a gzip or brotli body that inflates to 16 MiB of text for ~130 ms (`npx tsx bench/recording-block.ts`),
 * and every other exchange in flight waited as long: an instrument that measures page loads stalled them.
 */
import type { BodyCapture, Exchange, RawHeaders, RequestRecord } from '../model.js';
import { decodeContentAsync, isTextBody, utf8Prefix } from './body.js';
import { captureNotes, contentHead, header, postDataOf } from './entry.js';
import { isHeaderName } from './header-name.js';
import { JsonBytes } from './json-bytes.js';

/** Captured bodies this long or longer go through a job even when not compressed (~0.3 ms of escaping at once). */
export const JOB_MIN_BYTES = 64 * 1024;
/** Bytes escaped per event-loop turn: ~0.3 ms each on this project's machines. */
export const SLICE_BYTES = 256 * 1024;
/** Bytes base64-encoded per turn: a multiple of 3, so the slices' encodings join into the whole's. */
const BASE64_SLICE = 3 * 64 * 1024;

/** The JSON of the bodies a job made (each undefined when that body is written the usual way, at once). */
export interface BodiesJson {
  content?: Uint8Array;
  postData?: Uint8Array;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A Content-Encoding other than identity: decoding it can take any time (a few hundred bytes of brotli inflate to 64 MiB). */
function encoded(headers: RawHeaders): boolean {
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i][0];
    if (name.length === 16 && isHeaderName(name, 'content-encoding')) return headers[i][1].trim().toLowerCase() !== 'identity';
  }
  return false;
}

const heavy = (bytes: Uint8Array, headers: RawHeaders): boolean => bytes.length >= JOB_MIN_BYTES || (bytes.length > 0 && encoded(headers));

const requestHeavy = (r: RequestRecord): boolean => r.body.size > 0 && heavy(r.body.bytes, r.headers);

/** Whether an exchange's line needs a job: a captured body that is large or content-encoded. */
export function needsBodyJob(x: Exchange): boolean {
  const s = x.response;
  return (s !== undefined && heavy(s.body.bytes, s.headers)) || requestHeavy(x.request);
}

/** The JSON of the exchange's heavy bodies (see needsBodyJob), made over several event-loop turns. */
export async function bodiesJson(x: Exchange): Promise<BodiesJson> {
  const out: BodiesJson = {};
  if (requestHeavy(x.request)) out.postData = await postDataJson(x.request);
  const s = x.response;
  if (s !== undefined && heavy(s.body.bytes, s.headers)) out.content = await contentJson(s.body, s.headers);
  return out;
}

/** JSON.stringify(harContent(x)): its fields from entry.ts (contentHead, captureNotes), its text made here in slices. */
async function contentJson(body: BodyCapture, headers: RawHeaders): Promise<Uint8Array> {
  const decoded = await decodeContentAsync(body.bytes, header(headers, 'content-encoding'), body.truncated);
  const head = contentHead(body, headers, decoded);
  const o = new JsonBytes(Math.ceil((decoded.bytes.length * 4) / 3) + 1024);
  openObject(o, head);
  if (body.bytes.length > 0) {
    o.ascii(',"text":');
    // A body that failed to decode goes as its wire bytes in base64, whatever its type (harContent).
    const base64 = decoded.error
      ? await base64Literal(o, decoded.bytes)
      : await textLiteral(o, decoded.bytes, head.mimeType, decoded.partial);
    if (base64) o.ascii(',"encoding":"base64"');
  }
  closeObject(o, captureNotes(body, decoded));
  return o.bytes();
}

/** JSON.stringify(harPostData(r)). Form bodies (their `params` parsed) are made at once after decoding (postDataOf). */
async function postDataJson(r: RequestRecord): Promise<Uint8Array> {
  const mimeType = header(r.headers, 'content-type') ?? '';
  const decoded = await decodeContentAsync(r.body.bytes, header(r.headers, 'content-encoding'), r.body.truncated);
  const essence = mimeType.split(';')[0].trim().toLowerCase();
  if (essence === 'application/x-www-form-urlencoded' || essence === 'multipart/form-data')
    return Buffer.from(JSON.stringify(postDataOf(r, decoded)));
  // Any other type: post-data.ts's { mimeType, text, _encoding } (HAR 1.2 has no `encoding` on postData).
  const o = new JsonBytes(Math.ceil((decoded.bytes.length * 4) / 3) + 1024);
  openObject(o, { mimeType });
  o.ascii(',"text":');
  if (await textLiteral(o, decoded.bytes, mimeType, decoded.partial)) o.ascii(',"_encoding":"base64"');
  closeObject(o, captureNotes(r.body, decoded));
  return o.bytes();
}

/** The JSON of `fields` without its closing brace: more keys follow. */
function openObject(o: JsonBytes, fields: object): void {
  o.text(JSON.stringify(fields).slice(0, -1));
}

/** `fields`' keys, if any, then the closing brace. */
function closeObject(o: JsonBytes, fields: object): void {
  const json = JSON.stringify(fields);
  if (json === '{}') o.byte(125);
  else {
    o.byte(44);
    o.text(json.slice(1));
  }
}

/**
 * bodyText(bytes, mimeType, partial)'s text as a JSON string literal, a slice per turn; true when it is base64.
 * Text is the longest UTF-8 prefix utf8OrUndefined would decode, escaped as JSON.stringify escapes it; a control
 * character other than \t \n \v \f \r found on the way makes it binary after all, and base64 is written instead.
 */
async function textLiteral(o: JsonBytes, bytes: Buffer, mimeType: string, partial: boolean): Promise<boolean> {
  if (bytes.length === 0) {
    o.ascii('""');
    return false;
  }
  const n = isTextBody(bytes, mimeType) ? utf8Prefix(bytes, partial) : -1;
  if (n >= 0) {
    const start = o.pos;
    o.byte(34);
    let text = true;
    for (let i = 0; text && i < n; i += SLICE_BYTES) {
      if (i > 0) await turn();
      text = o.utf8Run(bytes, i, Math.min(n, i + SLICE_BYTES)) >= 0;
    }
    if (text) {
      o.byte(34);
      return false;
    }
    o.pos = start;
  }
  return base64Literal(o, bytes);
}

/** The bytes in base64 as a JSON string literal (the alphabet needs no escaping), a slice per turn; returns true. */
async function base64Literal(o: JsonBytes, bytes: Buffer): Promise<true> {
  o.byte(34);
  for (let i = 0; i < bytes.length; i += BASE64_SLICE) {
    if (i > 0) await turn();
    const b64 = bytes.subarray(i, Math.min(bytes.length, i + BASE64_SLICE)).toString('base64');
    o.room(b64.length);
    o.pos += o.buf.write(b64, o.pos, 'latin1');
  }
  o.byte(34);
  return true;
}
