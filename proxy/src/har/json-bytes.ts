/**
 * JSON text written straight into a reusable byte buffer, UTF-8 encoded as it
 * goes: what the recorder serializes a batch of journal lines into (entry-line.ts).
 *
 * Why bytes and not strings: building a line by string concatenation makes a
 * rope of a hundred-odd pieces that is flattened (joined), then encoded to UTF-8
 * again for the write, and each piece is garbage for the young-generation GC. Plain
 * ASCII (nearly every header, URL and id) is copied here one char code at a time,
 * checked for what JSON escapes in the same pass; anything else (escapes, non-ASCII,
 * long text such as bodies) goes through JSON.stringify and one UTF-8 write in C++.
 */
import { isUtf8 } from 'node:buffer';

/** Thrown by the typed writers when a value is not of the type the caller expected. */
export class NotPlain extends Error {}
export const NOT_PLAIN = new NotPlain('not a plain value');

/**
 * Strings longer than this skip the char-by-char copy: a regular expression checks them in one native scan and,
 * plain ASCII (most: user agents, accept lists, base64 bodies), they are written with one latin1 write; the rest
 * go through JSON.stringify. Half the time of JSON.stringify plus a UTF-8 write on a 110-char user agent, and no
 * string made per value (the escaped copy was garbage for the young-generation GC on every long header).
 */
const SHORT = 48;
/** A character JSON.stringify escapes (controls, quote, backslash) or that is not ASCII (UTF-8, lone surrogates). */
const NOT_PLAIN_ASCII = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

export class JsonBytes {
  buf: Buffer;
  /** Bytes written so far (the write position). */
  pos = 0;

  constructor(private readonly initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** ASCII text that needs no escaping (JSON punctuation, keys, numbers). */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.room(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** One byte (a JSON punctuation character). */
  byte(c: number): void {
    if (this.pos === this.buf.length) this.room(1);
    this.buf[this.pos++] = c;
  }

  /** Bytes as they are (pre-encoded JSON punctuation and keys). */
  lit(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.pos + n > this.buf.length) this.room(n);
    if (n > 32) {
      this.buf.set(bytes, this.pos);
      this.pos += n;
      return;
    }
    // A key or punctuation (most are 6 to 20 bytes): copied in JavaScript, TypedArray.set's call into C++ cost
    // more than the copy (an entry writes ~45 of them).
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = bytes[i];
    this.pos = p;
  }

  /** Any text, UTF-8 encoded (JSON already, e.g. from JSON.stringify). */
  text(s: string): void {
    // A UTF-16 unit takes at most 3 bytes; a long text (a body) is measured instead, so it reserves no more than it needs.
    this.room(s.length > 65536 ? Buffer.byteLength(s) : s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /**
   * A JSON string literal, the bytes of what JSON.stringify(s) writes. Returns the UTF-8
   * length of `s` itself when it was copied as is (plain ASCII), else -1 (escaped or non-ASCII).
   */
  str(s: unknown): number {
    if (typeof s !== 'string') throw NOT_PLAIN;
    const n = s.length;
    if (n > SHORT) {
      if (NOT_PLAIN_ASCII.test(s)) {
        this.text(JSON.stringify(s));
        return -1;
      }
      if (this.pos + n + 2 > this.buf.length) this.room(n + 2);
      this.buf[this.pos++] = 34;
      this.pos += this.buf.write(s, this.pos, 'latin1');
      this.buf[this.pos++] = 34;
      return n;
    }
    if (this.pos + n + 2 > this.buf.length) this.room(n + 2);
    const b = this.buf;
    let p = this.pos;
    b[p++] = 34;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // Controls, quote and backslash are escaped; non-ASCII is UTF-8 (and lone surrogates escaped) by the slow path.
      if (c < 0x20 || c === 34 || c === 92 || c > 0x7e) {
        this.text(JSON.stringify(s));
        return -1;
      }
      b[p++] = c;
    }
    b[p++] = 34;
    this.pos = p;
    return n;
  }

  /**
   * A JSON string literal of text given as UTF-8 bytes, the bytes of what JSON.stringify of the decoded string
   * writes: '"', '\\' and \t \n \v \f \r escaped, the rest copied as is (valid UTF-8 has no lone surrogates, the only
   * other characters JSON.stringify escapes). Returns false and writes nothing when the bytes are not valid UTF-8 or
   * hold any other control character (U+0000 to U+0008, U+000E to U+001F): body.ts takes such text for binary, and
   * the caller then writes base64 instead.
   *
   * Why: a recorded text body was decoded to a string (TextDecoder), checked by two regular expressions,
   * escaped by JSON.stringify and encoded back to UTF-8; this is one pass over the bytes and no string. Plain
   * ASCII (most JSON, HTML, CSS and scripts) is valid UTF-8 as it is: only bytes above 0x7f make it call isUtf8,
   * whose call cost as much as the copy of a small body.
   */
  utf8(bytes: Uint8Array): boolean {
    const start = this.pos;
    this.byte(34);
    const high = this.utf8Run(bytes, 0, bytes.length);
    if (high < 0 || (high >= 0x80 && !isUtf8(bytes))) {
      this.pos = start;
      return false;
    }
    this.byte(34);
    return true;
  }

  /**
   * The inside of utf8()'s string literal for bytes[from, to): escaped, no quotes, no UTF-8 check. Returns the bits of
   * every byte copied ORed together (0x80 set: the caller must check the bytes are UTF-8), or -1 at a control
   * character that makes the text binary, having written part of the run. A run at a time lets a large body be
   * written over several event-loop turns (content-job.ts).
   */
  utf8Run(bytes: Uint8Array, from: number, to: number): number {
    if (this.pos + (to - from) > this.buf.length) this.room(to - from);
    let b = this.buf;
    let p = this.pos;
    let high = 0;
    for (let i = from; i < to; i++) {
      const c = bytes[i];
      if (c >= 0x20 && c !== 34 && c !== 92) {
        b[p++] = c;
        high |= c;
        continue;
      }
      const esc = c === 34 ? 34 : c === 92 ? 92 : c === 9 ? 116 : c === 10 ? 110 : c === 12 ? 102 : c === 13 ? 114 : c === 11 ? 0 : -1;
      if (esc < 0) {
        this.pos = p;
        return -1;
      }
      // Room for this escape (6 bytes at most) and the rest unescaped.
      if (p + 6 + (to - i) > b.length) {
        this.pos = p;
        this.room(6 + (to - i));
        b = this.buf;
      }
      b[p++] = 92;
      if (esc === 0) {
        // \v has no short escape in JSON: \u000b.
        b[p++] = 117;
        b[p++] = 48;
        b[p++] = 48;
        b[p++] = 48;
        b[p++] = 98;
      } else b[p++] = esc;
    }
    this.pos = p;
    return high;
  }

  /**
   * A JSON number (non-finite -> null), the bytes JSON.stringify writes. An entry has ~20 numbers, most of them
   * whole or rounded to thousandths (timings, har/round); V8's number-to-string (shortest round trip) took
   * ~120 ns each, ~3 µs per exchange in a recording proxy's profile, so those two shapes are written digit by
   * digit. For k/1000 with |k| < 1e12 the exact decimal of k/1000 is the only shortest form that reads back as
   * the same double (any other decimal with at most 3 fraction digits is at least 0.001 away, far more than the gap between
   * doubles there), which is what JavaScript prints; the property test in proxy/test/har/json-bytes.test.ts holds
   * it to JSON.stringify. Anything else takes the generic way.
   */
  num(n: unknown): void {
    if (typeof n !== 'number') throw NOT_PLAIN;
    // Most of an entry's numbers are small: sizes, status, -1, timings under 35 minutes (thousandths under 2^31).
    // Those are written with 32-bit integer arithmetic, not the float division and remainder of digits().
    if ((n | 0) === n && n !== -2147483648) {
      if (this.pos + 11 > this.buf.length) this.room(11);
      if (n < 0) this.buf[this.pos++] = 45;
      this.uint(n < 0 ? -n : n, 0);
      return;
    }
    const t = Math.round(n * 1000);
    if ((t | 0) === t && t !== -2147483648 && t / 1000 === n) {
      if (this.pos + 12 > this.buf.length) this.room(12);
      if (t < 0) this.buf[this.pos++] = 45;
      const a = t < 0 ? -t : t;
      const whole = (a / 1000) | 0;
      let f = a - whole * 1000;
      this.uint(whole, 0);
      // Not whole (the integer case above took those): 1 to 3 fraction digits, trailing zeros dropped.
      let width = 3;
      while (f !== 0 && f - ((f / 10) | 0) * 10 === 0) {
        f = (f / 10) | 0;
        width--;
      }
      this.buf[this.pos++] = 46;
      this.uint(f, width);
      return;
    }
    if (Number.isInteger(n) && n > -1e15 && n < 1e15) {
      if (this.pos + 17 > this.buf.length) this.room(17);
      if (n < 0) this.buf[this.pos++] = 45;
      const a = Math.abs(n);
      // Epoch milliseconds (each entry's "s"): the digits above 1e9 and the nine below, each in 32-bit arithmetic.
      const hi = Math.floor(a / 1e9);
      if (hi > 0 && hi < 2147483648) {
        this.uint(hi, 0);
        this.uint(a - hi * 1e9, 9);
      } else this.digits(a, 0);
      return;
    }
    const k = Math.round(n * 1000);
    if (k / 1000 === n && k > -1e12 && k < 1e12) {
      if (this.pos + 18 > this.buf.length) this.room(18);
      if (k < 0) this.buf[this.pos++] = 45;
      const a = Math.abs(k);
      const frac = a % 1000;
      this.digits((a - frac) / 1000, 0);
      // Not whole (the integer case above took those): 1–3 fraction digits, trailing zeros dropped.
      let f = frac;
      let width = 3;
      while (f !== 0 && f % 10 === 0) {
        f /= 10;
        width--;
      }
      this.buf[this.pos++] = 46;
      this.digits(f, width);
      return;
    }
    this.ascii(Number.isFinite(n) ? '' + n : 'null');
  }

  /** digits() for a whole `v` from 0 to 2^31 - 1, in 32-bit integer arithmetic; room was made by the caller. */
  private uint(v: number, width: number): void {
    let len = 1;
    for (let t = v; t >= 10; t = (t / 10) | 0) len++;
    if (len < width) len = width;
    const b = this.buf;
    let p = this.pos + len;
    this.pos = p;
    for (let i = 0; i < len; i++) {
      const q = (v / 10) | 0;
      b[--p] = 48 + v - q * 10;
      v = q;
    }
  }

  /** The decimal digits of a whole `v` >= 0, left-padded with zeros to `width`; room was made by the caller. */
  private digits(v: number, width: number): void {
    let len = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) len++;
    if (len < width) len = width;
    const b = this.buf;
    let p = this.pos + len;
    this.pos = p;
    for (let i = 0; i < len; i++) {
      const d = v % 10;
      b[--p] = 48 + d;
      v = (v - d) / 10;
    }
  }

  bool(b: unknown): void {
    if (typeof b !== 'boolean') throw NOT_PLAIN;
    this.ascii(b ? 'true' : 'false');
  }

  /** `,"key":value` when JSON.stringify would write the property (any JSON value, the generic way). */
  opt(key: string, value: unknown): void {
    if (value === undefined) return;
    const json = JSON.stringify(value);
    if (json === undefined) return;
    this.ascii(',"' + key + '":');
    this.text(json);
  }

  /** The bytes written so far (a view: valid until the next write or reset). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Empties the buffer for reuse; one grown for a large body is let go. */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > this.initialSize * 16) this.buf = Buffer.allocUnsafe(this.initialSize);
  }
}
