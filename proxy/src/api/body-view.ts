/**
 * Turns a captured body (content-encoded bytes) into something a UI can show:
 * decoded from gzip/br/deflate, text when it is text, base64 otherwise, cut for
 * display when huge. Runs in the core because zlib lives in Node.
 */
import zlib from 'node:zlib';
import type { BodyCapture, RawHeaders } from '../model.js';
import type { BodyView } from './contract.js';
import type { LooseHarEntry } from '../har/types.js';
import { decodeFailureNote } from './decode-note.js';
import { splitCut } from '../sessions/capped-json.js';
import { isBase64Body } from './har-row.js';
import { postDataText } from './session-view.js';

/** Larger bodies are cut for display: a DOM text node of many MiB freezes the UI. */
export const DISPLAY_LIMIT = 2 * 1024 * 1024;
/** Decompression cap: a zip bomb in a capture must not take the core's memory. */
const MAX_DECODED = 64 * 1024 * 1024;

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

/**
 * Decodes content-encoding. Truncated captures decode as far as they go
 * (SYNC_FLUSH instead of FINISH), so the first part of a large gzip body still shows.
 */
function decodeContent(bytes: Buffer, encoding: string, truncated: boolean): Buffer {
  const opts = { maxOutputLength: MAX_DECODED } as const;
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(bytes, truncated ? { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH } : opts);
    case 'br':
      return zlib.brotliDecompressSync(bytes, truncated ? { ...opts, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH } : opts);
    case 'deflate':
      // RFC 9110 says zlib-wrapped; some servers send raw deflate anyway.
      try {
        return zlib.inflateSync(bytes, truncated ? { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH } : opts);
      } catch {
        return zlib.inflateRawSync(bytes, truncated ? { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH } : opts);
      }
    default:
      throw new Error(`unsupported content-encoding "${encoding}"`);
  }
}

export function bodyView(capture: BodyCapture | undefined, headers: RawHeaders): BodyView {
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
  let bytes = Buffer.from(capture.bytes.buffer, capture.bytes.byteOffset, capture.bytes.byteLength);
  const encoding = (headerValue(headers, 'content-encoding') ?? '').trim().toLowerCase();
  let contentEncoding: string | undefined;
  let decodeError: string | undefined;
  if (encoding && encoding !== 'identity') {
    try {
      bytes = decodeContent(bytes, encoding, capture.truncated);
      contentEncoding = encoding;
    } catch (err) {
      decodeError = decodeFailureNote(encoding, (err as Error).message);
    }
  }
  const decodedSize = bytes.length;
  const displayTruncated = bytes.length > DISPLAY_LIMIT;
  const shown = displayTruncated ? bytes.subarray(0, DISPLAY_LIMIT) : bytes;
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
