/**
 * "Copy as cURL": an exchange's request as a POSIX shell command that replays it.
 * HTTP/2 pseudo-headers become the URL and method; hop-by-hop headers that curl
 * sets itself are left out.
 *
 * Every part comes from the network or from a HAR file anyone can write, and the
 * command is pasted into a shell, so every part is quoted (shellQuote): a method
 * such as `GET$(touch pwned)` must reach curl as one argument and run nothing.
 * Characters a terminal or line editor acts on when pasted (control characters,
 * bidi overrides) never appear raw: they are produced by `printf` octal escapes.
 * A NUL cannot be in an argument at all: a body with one is piped to
 * `--data-binary @-`; a method, URL or header with one cannot be copied.
 */
import type { HeaderList } from '../../../proxy/src/api/contract';

const SKIP = new Set(['host', 'content-length', 'connection', 'proxy-connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te']);

/** Python's shlex.quote: these need no quotes in any POSIX shell. */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;
/**
 * Characters kept out of the pasted text: C0 controls but newline (tab would trigger
 * completion, ^U erases the line, ESC starts terminal sequences), DEL, C1 controls,
 * line/paragraph separators and bidi overrides (they make the command read differently from what it does).
 */
const UNSAFE = /[\0-\x09\x0B-\x1F\x7F-\x9F\u2028\u2029\u202A-\u202E\u2066-\u2069]+/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A request that no shell command can express exactly. */
export class CurlError extends Error {}

/** A lone UTF-16 surrogate has no UTF-8 form; the clipboard would turn it into U+FFFD anyway. */
function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** `\ooo` octal escapes of the UTF-8 bytes: what POSIX printf understands in its format. */
function octal(s: string): string {
  return [...new TextEncoder().encode(s)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
}

/**
 * One shell word that the shell turns back into exactly `s` (after lone
 * surrogates became U+FFFD). Plain text is single-quoted (`'` as `'\''`);
 * unsafe characters are spliced in as `"$(printf '\ooo')"` (never a newline,
 * which command substitution would strip). `bare` leaves shlex-safe words unquoted.
 */
export function shellQuote(s: string, { bare = false } = {}): string {
  if (s.includes('\0')) throw new CurlError('a shell argument cannot contain a NUL character');
  const text = wellFormed(s);
  if (bare && BARE.test(text)) return text;
  if (text === '') return "''";
  let out = '';
  let last = 0;
  const plain = (t: string) => (t ? `'${t.replace(/'/g, `'\\''`)}'` : '');
  for (const m of text.matchAll(UNSAFE)) {
    out += plain(text.slice(last, m.index)) + `"$(printf '${octal(m[0])}')"`;
    last = m.index! + m[0].length;
  }
  return out + plain(text.slice(last));
}

/** A printf format that prints exactly `s` (bytes of its UTF-8), for bodies that an argument cannot carry. */
function printfFormat(s: string): string {
  let fmt = '';
  let first = true;
  for (const ch of wellFormed(s)) {
    // A format starting with "-" would be read as an option by bash's printf.
    if (first && ch === '-') fmt += octal(ch);
    else if (ch === '%') fmt += '%%';
    else if (ch === '\\') fmt += '\\\\';
    else if (ch === "'" || ch === '\n' || /^[\0-\x1F\x7F-\x9F\u2028\u2029\u202A-\u202E\u2066-\u2069]$/.test(ch)) fmt += octal(ch);
    else fmt += ch;
    first = false;
  }
  return `'${fmt}'`;
}

function refuse(part: string, value: string): void {
  if (value.includes('\0')) throw new CurlError(`the ${part} contains a NUL character, which no command-line argument can carry.`);
}

export function toCurl(req: { method: string; url: string; headers: HeaderList; body?: string; httpVersion?: string }): string {
  refuse('method', req.method);
  refuse('URL', req.url);
  // A URL starting with "-" would be read as an option (e.g. -o file): name it with --url.
  const parts = req.url.startsWith('-') ? ['curl', '--url', shellQuote(req.url)] : ['curl', shellQuote(req.url)];
  // curl expands [1-3] and {a,b} in URLs; a captured URL means exactly itself.
  if (/[[\]{}]/.test(req.url)) parts.push('--globoff');
  if (req.method !== 'GET' || req.body) parts.push('-X', shellQuote(req.method, { bare: true }));
  for (const [name, value] of req.headers) {
    if (name.startsWith(':') || SKIP.has(name.toLowerCase())) continue;
    refuse(`header ${JSON.stringify(name.slice(0, 40))}`, `${name}${value}`);
    // curl reads "-H @file" as a file of headers: a header name cannot start with "@" (it is not an HTTP token).
    if (name.startsWith('@')) {
      throw new CurlError(`the header name ${JSON.stringify(name.slice(0, 40))} is not valid HTTP and curl would read it as a file name.`);
    }
    // "-H 'X:'" tells curl to remove a header; "-H 'X;'" sends it with an empty value.
    parts.push('-H', shellQuote(value === '' ? `${name};` : `${name}: ${value}`));
  }
  let stdin: string | undefined;
  if (req.body && req.body.includes('\0')) {
    stdin = `printf ${printfFormat(req.body)} |`;
    parts.push('--data-binary', '@-');
  } else if (req.body) {
    parts.push('--data-raw', shellQuote(req.body));
  }
  if (req.httpVersion === 'h2' || /^http\/2/i.test(req.httpVersion ?? '')) parts.push('--http2');
  if (req.headers.some(([n, v]) => n.toLowerCase() === 'accept-encoding' && /gzip|br|deflate/.test(v))) parts.push('--compressed');
  return stdin ? `${stdin} ${parts.join(' ')}` : parts.join(' ');
}
