/**
 * Body bytes → HAR text. Bodies are captured as sent on the wire (still
 * content-encoded); HAR's `content.text` holds the decoded body, as text when
 * it is text and as base64 otherwise. `bodySize` keeps the wire size.
 */
import { isUtf8 } from 'node:buffer';
import zlib from 'node:zlib';

/** Upper bound of a decoded body kept in a HAR: guards against decompression bombs. */
export const MAX_DECODED_BODY = 64 * 1024 * 1024;

export interface DecodedBody {
  /** Decoded bytes (or the wire bytes when decoding was not possible). */
  bytes: Buffer;
  /** Content codings that were removed, outermost last as in the header (e.g. ["gzip"]). */
  decoded: string[];
  /** Why decoding failed, when it did (the bytes are then the wire bytes). */
  error?: string;
  /** True when the decoded output hit MAX_DECODED_BODY or the input was cut by the capture limit. */
  partial: boolean;
  /** The decoded length when `bytes` holds only its first bytes (decodeContentAsync's `keep`). */
  fullLength?: number;
}

/**
 * Removes the content codings named in a Content-Encoding header (gzip, x-gzip,
 * deflate, br; identity ignored). Captured bodies may be truncated by the
 * capture limit, so decoding flushes what it has instead of requiring a
 * complete stream.
 */
export function decodeContent(
  bytes: Uint8Array,
  contentEncoding: string | undefined,
  truncated: boolean,
  maxOutput = MAX_DECODED_BODY,
): DecodedBody {
  const wire = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const codings = codingsToUndo(contentEncoding, wire);
  if (codings.length === 0) return { bytes: wire, decoded: [], partial: truncated };
  let out = wire;
  for (const coding of codings) {
    try {
      out = decodeOne(out, coding, maxOutput);
    } catch (err) {
      return decodeFailed(wire, coding, err, truncated);
    }
  }
  return decodedBody(out, codings, truncated, maxOutput);
}

/**
 * decodeContent on libuv's thread pool (zlib streams, decodeOneAsync): the same result, and the event loop free while
 * a compressed body is inflated (up to MAX_DECODED_BODY: a brotli body of a few hundred bytes can decode to that).
 * The twin of decodeContent, line for line, but for the await and `keep`: a reader that shows only the start of a
 * body (the UI's body view) keeps that many decoded bytes and learns the rest's length (`fullLength`) without
 * holding it, so viewing a bomb costs its prefix in memory, not 64 MiB.
 */
export async function decodeContentAsync(
  bytes: Uint8Array,
  contentEncoding: string | undefined,
  truncated: boolean,
  maxOutput = MAX_DECODED_BODY,
  keep = Infinity,
): Promise<DecodedBody> {
  const wire = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const codings = codingsToUndo(contentEncoding, wire);
  if (codings.length === 0) return { bytes: wire, decoded: [], partial: truncated };
  let out: Inflated = { bytes: wire, length: wire.length };
  for (let i = 0; i < codings.length; i++) {
    try {
      // Only the last coding's output is what the reader gets: the ones before it feed the next decoder whole.
      out = await decodeOneAsync(out.bytes, codings[i], maxOutput, i === codings.length - 1 ? keep : Infinity);
    } catch (err) {
      return decodeFailed(wire, codings[i], err, truncated);
    }
  }
  const body = decodedBody(out.bytes, codings, truncated || out.length >= maxOutput, maxOutput);
  if (out.length > out.bytes.length) body.fullLength = out.length;
  return body;
}

/** The content codings to undo, last applied first (empty: nothing to decode). Most bodies have none: no parsing then. */
function codingsToUndo(contentEncoding: string | undefined, wire: Buffer): string[] {
  if (!contentEncoding || wire.length === 0) return [];
  return contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
    .reverse();
}

function decodeFailed(wire: Buffer, coding: string, err: unknown, truncated: boolean): DecodedBody {
  return { bytes: wire, decoded: [], error: `${coding}: ${(err as Error).message}`, partial: truncated };
}

/** `decoded` lists the codings outermost last, as in the header. */
function decodedBody(out: Buffer, undone: string[], truncated: boolean, maxOutput: number): DecodedBody {
  return { bytes: out, decoded: [...undone].reverse(), partial: truncated || out.length >= maxOutput };
}

/**
 * Sync flush lets a body cut short by the capture limit decode as far as it goes. A whole body (`complete`, what a
 * rule rewrites) keeps zlib's default, the finishing flush: one that ends early fails instead of being half-decoded.
 */
const zlibOptions = (maxOutputLength: number, complete = false): zlib.ZlibOptions =>
  complete ? { maxOutputLength } : { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength };
const brotliOptions = (maxOutputLength: number, complete = false): zlib.BrotliOptions =>
  complete ? { maxOutputLength } : { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, maxOutputLength };

function decodeOne(input: Buffer, coding: string, maxOutputLength: number): Buffer {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(input, zlibOptions(maxOutputLength));
    case 'deflate':
      // "deflate" is zlib-wrapped by the RFC, but some servers send raw deflate.
      try {
        return zlib.inflateSync(input, zlibOptions(maxOutputLength));
      } catch (err) {
        // Past the bound is past it in either wrapping; other failures may be raw deflate.
        if ((err as { code?: string }).code === TOO_LARGE) throw err;
        return zlib.inflateRawSync(input, zlibOptions(maxOutputLength));
      }
    case 'br':
      return zlib.brotliDecompressSync(input, brotliOptions(maxOutputLength));
    default:
      throw new Error(`unsupported content coding "${coding}"`);
  }
}

/** Decoded output: its first bytes (all of them unless a `keep` cut it) and its whole length. */
interface Inflated {
  bytes: Buffer;
  length: number;
}

/**
 * One whole body in one content coding (gzip, x-gzip, deflate, br), decoded on the thread pool: for the rules, which
 * rewrite a body they read whole. Rejects past `max` decoded bytes with a RangeError whose code is
 * ERR_BUFFER_TOO_LARGE (zlib's own for its *Sync calls), on an unknown coding, and on bytes that are not that coding
 * or end early.
 */
export async function inflateWhole(input: Buffer, coding: string, max: number): Promise<Buffer> {
  return (await decodeOneAsync(input, coding, max, Infinity, true)).bytes;
}

/**
 * decodeOne on the thread pool: the same codings, options, fallback and errors. A zlib stream, not zlib's callback
 * API, whose Buffer.concat of the output (16 MiB: ~4 ms, fresh pages faulted in) ran at once on the event loop: the
 * chunks are joined a slice per turn instead.
 */
async function decodeOneAsync(input: Buffer, coding: string, maxOutputLength: number, keep: number, complete = false): Promise<Inflated> {
  const z = zlibOptions(maxOutputLength, complete);
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return inflateAsync(zlib.createGunzip(z), input, maxOutputLength, keep);
    case 'deflate':
      try {
        return await inflateAsync(zlib.createInflate(z), input, maxOutputLength, keep);
      } catch (err) {
        // Past the bound is past it in either wrapping; other failures may be raw deflate.
        if ((err as { code?: string }).code === TOO_LARGE) throw err;
        return inflateAsync(zlib.createInflateRaw(z), input, maxOutputLength, keep);
      }
    case 'br':
      return inflateAsync(zlib.createBrotliDecompress(brotliOptions(maxOutputLength, complete)), input, maxOutputLength, keep);
    default:
      throw new Error(`unsupported content coding "${coding}"`);
  }
}

/** What zlib's *Sync calls throw past maxOutputLength. */
const TOO_LARGE = 'ERR_BUFFER_TOO_LARGE';

/** Bytes of output copied per turn when the chunks are joined. */
const JOIN_SLICE = 1024 * 1024;

function inflateAsync(
  z: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress,
  input: Buffer,
  max: number,
  keep: number,
): Promise<Inflated> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let kept = 0;
    z.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (kept < keep) {
        const part = kept + chunk.length > keep ? chunk.subarray(0, keep - kept) : chunk;
        chunks.push(part);
        kept += part.length;
      }
      if (length > max) {
        // What zlib's own functions throw past maxOutputLength (the message goes into _decodingError).
        z.destroy();
        reject(Object.assign(new RangeError(`Cannot create a Buffer larger than ${max} bytes`), { code: TOO_LARGE }));
      }
    });
    z.once('error', reject);
    z.once('end', () => joinInSlices(chunks, kept).then((bytes) => resolve({ bytes, length }), reject));
    z.end(input);
  });
}

async function joinInSlices(chunks: Buffer[], length: number): Promise<Buffer> {
  if (chunks.length === 1) return chunks[0];
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  let sinceTurn = 0;
  for (const chunk of chunks) {
    if (sinceTurn >= JOIN_SLICE) {
      await new Promise((resolve) => setImmediate(resolve));
      sinceTurn = 0;
    }
    at += chunk.copy(out, at);
    sinceTurn += chunk.length;
  }
  return out;
}

const TEXT_MIME =
  /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson|manifest\+json)\b|image\/svg\+xml)/i;

/** MIME types asked about → the answer: a recorder asks for every response, of a handful of types. Bounded. */
const textMimeSeen = new Map<string, boolean>();
const MAX_TEXT_MIME_SEEN = 256;

/** Whether a MIME type names text (charset aside). */
export function isTextMime(mimeType: string): boolean {
  const known = textMimeSeen.get(mimeType);
  if (known !== undefined) return known;
  const text = TEXT_MIME.test(mimeType.trim());
  if (textMimeSeen.size < MAX_TEXT_MIME_SEEN) textMimeSeen.set(mimeType, text);
  return text;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes bytes as UTF-8 if they are valid UTF-8. A body cut by the capture
 * limit may end inside a multi-byte character: up to 3 trailing bytes are
 * dropped in that case (`partial`).
 */
export function utf8OrUndefined(bytes: Buffer, partial: boolean): string | undefined {
  const tries = partial ? 4 : 1;
  for (let cut = 0; cut < tries && cut <= bytes.length; cut++) {
    try {
      return utf8.decode(bytes.subarray(0, bytes.length - cut));
    } catch {
      // try with one byte fewer
    }
  }
  return undefined;
}

/**
 * The length of the longest prefix of `bytes` that utf8OrUndefined decodes (all of them, or with `partial` up to 3
 * fewer), or -1 when it decodes none. isUtf8 (native) accepts what the fatal TextDecoder does, without making a string.
 */
export function utf8Prefix(bytes: Uint8Array, partial: boolean): number {
  const tries = partial ? 4 : 1;
  for (let cut = 0; cut < tries && cut <= bytes.length; cut++) if (isUtf8(bytes.subarray(0, bytes.length - cut))) return bytes.length - cut;
  return -1;
}

/** Whether bodyText tries a body as text: a text MIME type, or none and no NUL in its first 512 bytes. */
export const isTextBody = (bytes: Uint8Array, mimeType: string): boolean =>
  isTextMime(mimeType) || (!mimeType.trim() && looksLikeText(bytes));

/** Text when the MIME type is text (or empty/unknown and the bytes are clean UTF-8); base64 otherwise. */
export function bodyText(bytes: Buffer, mimeType: string, partial: boolean): { text: string; encoding?: 'base64' } {
  if (bytes.length === 0) return { text: '' };
  if (isTextBody(bytes, mimeType)) {
    const text = utf8OrUndefined(bytes, partial);
    // Control characters other than whitespace mean the "text" is binary after all.
    if (text !== undefined && !/[\u0000-\u0008\u000e-\u001f]/.test(text)) return { text };
  }
  return { text: bytes.toString('base64'), encoding: 'base64' };
}

function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 512);
  for (const b of sample) if (b === 0) return false;
  return true;
}
