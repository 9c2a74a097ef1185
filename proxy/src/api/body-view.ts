/**
 * Turns a captured body (content-encoded bytes) into something a UI can show:
 * decoded from gzip/br/deflate, text when it is text, base64 otherwise, cut for
 * display when huge. Runs in the core because zlib lives in Node.
 *
 * Decoding is har/body.ts's, on libuv's thread pool: a few hundred bytes of brotli
 * inflate to 64 MiB, and a view decoded at once held the proxy's event loop (every
 * exchange in flight) for as long as that took, ~100 ms for 16 MiB. Only the shown
 * part is kept; the rest is counted for `decodedSize`.
 */
import type { BodyCapture, RawHeaders } from '../model.js';
import type { BodyView } from './contract.js';
import type { LooseHarEntry } from '../har/types.js';
import { decodeContentAsync, MAX_DECODED_BODY } from '../har/body.js';
import { decodeFailureNote } from './decode-note.js';
import { splitCut } from '../sessions/capped-json.js';
import { isBase64Body } from './har-row.js';
import { postDataText } from './session-view.js';

/** Larger bodies are cut for display: a DOM text node of many MiB freezes the UI. */
export const DISPLAY_LIMIT = 2 * 1024 * 1024;

export function headerValue(headers: RawHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [n, v] of headers) if (n.toLowerCase() === lower) return v;
  return undefined;
}

/** `text/html; charset=utf-8` → `text/html`. */
export function mimeOf(headers: RawHeaders): string {
  return (headerValue(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

const TEXT_MIME =
  /^(text\/|application\/(json|javascript|ecmascript|xml|xhtml\+xml|x-www-form-urlencoded|graphql|ld\+json|manifest\+json)|image\/svg\+xml)|\+json$|\+xml$/;

export function isTextMime(mime: string): boolean {
  return TEXT_MIME.test(mime);
}

/** True when the bytes are valid UTF-8 without NUL in the first KiB (binary formats have NULs early). */
function looksLikeUtf8Text(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 64 * 1024));
    return true;
  } catch (err) {
    // A multi-byte character cut at the 64 KiB boundary is still text.
    return (err as Error) instanceof TypeError && bytes.length > 64 * 1024;
  }
}

export async function bodyView(capture: BodyCapture | undefined, headers: RawHeaders): Promise<BodyView> {
  const mimeType = mimeOf(headers);
  if (!capture || capture.size === 0 || capture.bytes.length === 0) {
    return {
      kind: 'none',
      data: '',
      mimeType,
      wireSize: capture?.size ?? 0,
      decodedSize: 0,
      captureTruncated: capture?.truncated ?? false,
      displayTruncated: false,
    };
  }
  const encoding = (headerValue(headers, 'content-encoding') ?? '').trim().toLowerCase();
  // The same decoding as the HAR's (codings in a list, x-gzip, raw deflate, a cut body decoded as far as it goes),
  // keeping what is shown: the view and an export of the same exchange agree.
  const decoded = await decodeContentAsync(capture.bytes, encoding, capture.truncated, MAX_DECODED_BODY, DISPLAY_LIMIT);
  const bytes = decoded.bytes;
  const contentEncoding = decoded.decoded.length > 0 ? decoded.decoded.join(', ') : undefined;
  const decodeError = decoded.error === undefined ? undefined : decodeFailureNote(encoding, decoded.error);
  const decodedSize = decoded.fullLength ?? bytes.length;
  const displayTruncated = decodedSize > DISPLAY_LIMIT;
  const shown = bytes.length > DISPLAY_LIMIT ? bytes.subarray(0, DISPLAY_LIMIT) : bytes;
  const text = !decodeError && (isTextMime(mimeType) || (!mimeType.startsWith('image/') && looksLikeUtf8Text(shown)));
  return {
    kind: text ? 'text' : 'base64',
    data: text ? shown.toString('utf8') : shown.toString('base64'),
    mimeType,
    wireSize: capture.size,
    decodedSize,
    contentEncoding,
    captureTruncated: capture.truncated,
    displayTruncated,
    decodeError,
  };
}

/**
 * A body of a HAR entry (already content-decoded, text or base64) as a BodyView.
 * Total over any JSON (HARs come from anywhere): wrong types read as no body.
 */
export function harBodyView(entry: LooseHarEntry, side: 'request' | 'response'): BodyView {
  const o = (v: unknown) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  const req = o(o(entry).request);
  const res = o(o(entry).response);
  const content = side === 'request' ? o(req.postData) : o(res.content);
  const mimeType = (typeof content.mimeType === 'string' ? content.mimeType.slice(0, 256) : '').split(';')[0]!.trim().toLowerCase();
  const size = side === 'request' ? req.bodySize : res.bodySize;
  const wireSize = typeof size === 'number' && Number.isFinite(size) ? size : -1;
  const raw = side === 'request' ? postDataText(content) : typeof content.text === 'string' ? content.text : undefined;
  // The recorder keeps undecodable bodies as their raw (still encoded) bytes and says why in _decodingError.
  const failed = content._decodingError;
  const base = {
    mimeType,
    wireSize,
    captureTruncated: Boolean(content._truncated),
    displayTruncated: false,
    ...(typeof failed === 'string' ? { decodeError: decodeFailureNote(undefined, failed) } : {}),
  };
  if (typeof raw !== 'string' || raw === '') return { ...base, kind: 'none', data: '', decodedSize: 0 };
  // A text body cut while reading (capped-json.ts) knows its whole size; callers read base64 bodies whole.
  const { text, fullBytes } = splitCut(raw);
  // Response content says `encoding`; Netlens marks binary request bodies with postData `_encoding`.
  const bytes = typeof content.text === 'string' && isBase64Body(content) ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  const decodedSize = fullBytes ?? bytes.length;
  const displayTruncated = decodedSize > DISPLAY_LIMIT;
  const shown = bytes.length > DISPLAY_LIMIT ? bytes.subarray(0, DISPLAY_LIMIT) : bytes;
  const asText = typeof failed !== 'string' && (isTextMime(mimeType) || (!mimeType.startsWith('image/') && looksLikeUtf8Text(shown)));
  return {
    ...base,
    kind: asText ? 'text' : 'base64',
    data: asText ? shown.toString('utf8') : shown.toString('base64'),
    decodedSize,
    displayTruncated,
  };
}
