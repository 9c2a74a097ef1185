/**
 * JSON text with every long string cut, made while reading, so showing a HAR
 * entry never needs its 95 MiB header in memory: JSON.parse of the whole entry
 * held the bytes, the text and the parsed value (3 × the entry) at once.
 *
 * A string longer than `cap` bytes keeps its first `cap` bytes (never cutting a
 * UTF-8 sequence or an escape) followed by a marker that carries its whole
 * decoded size in UTF-8 bytes: `\u0000nlcut<token>:<bytes>` (the token is random
 * per process, so a HAR cannot forge a marker). `splitCut` reads it back.
 * Everything else is copied byte for byte.
 */
import crypto from 'node:crypto';

const TOKEN = crypto.randomBytes(6).toString('hex');
/** What a cut string ends with, before its size, once parsed. */
const MARK = `\u0000nlcut${TOKEN}:`;
const MARK_JSON = `\\u0000nlcut${TOKEN}:`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A string as read by a capped read: its shown part, and its whole size when it was cut. */
export function splitCut(s: string): { text: string; fullBytes?: number } {
  const at = s.length > MARK.length ? s.lastIndexOf(MARK) : -1;
  if (at < 0) return { text: s };
  const fullBytes = Number(s.slice(at + MARK.length));
  return Number.isSafeInteger(fullBytes) ? { text: s.slice(0, at), fullBytes } : { text: s };
}

/** UTF-8 bytes of one \uXXXX escape (pairs of surrogates are 4 bytes together; a lone one is U+FFFD, 3). */
function escapeBytes(cp: number, afterHigh: boolean): { bytes: number; high: boolean } {
  if (cp >= 0xdc00 && cp <= 0xdfff && afterHigh) return { bytes: 1, high: false }; // 3 counted for the high one + 1 = 4
  if (cp >= 0xd800 && cp <= 0xdbff) return { bytes: 3, high: true };
  return { bytes: cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3, high: false };
}

export class JsonCapper {
  private readonly out: Buffer[] = [];
  private inString = false;
  /** Bytes of the current string copied so far; once >= cap at a boundary, copying stops. */
  private kept = 0;
  private cutting = false;
  /** Decoded UTF-8 bytes of the current string. */
  private decoded = 0;
  /** Escape state: 0 none, 1 after "\", 2-5 reading the 4 hex digits of \u. */
  private esc = 0;
  private hex = 0;
  private afterHigh = false;

  constructor(private readonly cap: number) {}

  write(chunk: Buffer): void {
    let copyFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (!this.inString) {
        if (b === QUOTE) this.startString();
        continue;
      }
      // Cut before a whole character: not inside an escape, not on a UTF-8 continuation byte.
      if (!this.cutting && this.kept >= this.cap && this.esc === 0 && b !== QUOTE && (b < 0x80 || b >= 0xc0)) {
        this.out.push(Buffer.from(chunk.subarray(copyFrom, i)));
        this.cutting = true;
      }
      if (this.cutting && this.esc === 0 && b !== QUOTE && b !== BACKSLASH) {
        // Past the cut: count the plain run up to the next quote or backslash at once (most of a huge string).
        const q = chunk.indexOf(QUOTE, i);
        const bs = chunk.indexOf(BACKSLASH, i);
        const end = q < 0 ? (bs < 0 ? chunk.length : bs) : bs < 0 ? q : Math.min(q, bs);
        this.decoded += end - i;
        this.afterHigh = false;
        i = end - 1;
        continue;
      }
      if (!this.cutting) this.kept++;
      if (this.esc === 1) {
        if (b === 0x75 /* u */) {
          this.esc = 2;
          this.hex = 0;
        } else {
          this.esc = 0;
          this.decoded += 1;
          this.afterHigh = false;
        }
      } else if (this.esc >= 2) {
        this.hex = this.hex * 16 + parseInt(String.fromCharCode(b), 16);
        if (++this.esc === 6) {
          this.esc = 0;
          const { bytes, high } = escapeBytes(this.hex, this.afterHigh);
          this.decoded += bytes;
          this.afterHigh = high;
        }
      } else if (b === BACKSLASH) {
        this.esc = 1;
      } else if (b === QUOTE) {
        if (this.cutting) {
          // Copying resumes at the closing quote, after the marker with the whole size.
          this.out.push(Buffer.from(`${MARK_JSON}${this.decoded}`, 'latin1'));
          copyFrom = i;
        }
        this.inString = false;
      } else {
        this.decoded += 1;
        this.afterHigh = false;
      }
    }
    // Copies, not views: the caller reuses its read buffer.
    if (!(this.inString && this.cutting)) this.out.push(Buffer.from(chunk.subarray(copyFrom)));
  }

  private startString(): void {
    this.inString = true;
    this.kept = 0;
    this.cutting = false;
    this.decoded = 0;
    this.esc = 0;
    this.afterHigh = false;
  }

  /** The capped JSON text. */
  text(): string {
    return Buffer.concat(this.out).toString('utf8');
  }
}
