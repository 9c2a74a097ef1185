/**
 * Two small HTTP/1.1 parsers for the reliability suite, written to be stricter than
 * the proxy: the raw origin's request parser flags anything a careful server could
 * read two ways (bare LF/CR, obs-fold, TE with CL, odd Content-Length, chunk syntax),
 * and the client's response parser splits the bytes a raw client received into responses.
 */

export interface WireRequest {
  method: string;
  target: string;
  headers: [string, string][];
  bodyLength: number;
  body: Buffer;
}

export type ParseStep<T> = { kind: 'done'; value: T; used: number } | { kind: 'more' } | { kind: 'error'; reason: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CRLF2 = Buffer.from('\r\n\r\n');

function headerValueOk(v: string): boolean {
  // Field values: VCHAR, SP, HTAB, obs-text; never CR, LF, NUL or other controls.
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

/** Parses the head lines of a message (after the start line); null on any oddity. */
function parseHeaderLines(lines: string[]): [string, string][] | string {
  const out: [string, string][] = [];
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) return `header line without a name: ${JSON.stringify(line.slice(0, 80))}`;
    const name = line.slice(0, i);
    if (!TOKEN.test(name)) return `bad header name ${JSON.stringify(name.slice(0, 80))}`;
    const value = line.slice(i + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!headerValueOk(value)) return `bad header value for ${name}`;
    out.push([name, value]);
  }
  return out;
}

/** The strict origin's request parser: one request from `buf` at `start`. */
export function parseRequest(buf: Buffer, start: number): ParseStep<WireRequest> {
  const end = buf.indexOf(CRLF2, start);
  if (end < 0) {
    if (buf.length - start > 256 * 1024) return { kind: 'error', reason: 'head larger than 256 KiB' };
    return { kind: 'more' };
  }
  const head = buf.subarray(start, end).toString('latin1');
  if (/\r(?!\n)|(?<!\r)\n/.test(head)) return { kind: 'error', reason: 'bare CR or LF in the head' };
  const [line, ...rest] = head.split('\r\n');
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.1$/.exec(line!);
  if (!m) return { kind: 'error', reason: `bad request line ${JSON.stringify(line!.slice(0, 120))}` };
  const [, method, target] = m as unknown as [string, string, string];
  if (!target.startsWith('/') && !(method === 'OPTIONS' && target === '*'))
    return { kind: 'error', reason: `target not origin-form: ${target.slice(0, 120)}` };
  if (rest.some((l) => l.startsWith(' ') || l.startsWith('\t'))) return { kind: 'error', reason: 'obs-fold in the head' };
  const headers = parseHeaderLines(rest);
  if (typeof headers === 'string') return { kind: 'error', reason: headers };
  const all = (n: string) => headers.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v);
  if (all('host').length !== 1) return { kind: 'error', reason: `${all('host').length} Host headers` };
  const te = all('transfer-encoding');
  const cl = all('content-length');
  let pos = end + 4;
  if (te.length) {
    if (cl.length) return { kind: 'error', reason: 'Transfer-Encoding and Content-Length together' };
    if (te.length !== 1 || te[0]!.toLowerCase() !== 'chunked') return { kind: 'error', reason: `Transfer-Encoding ${JSON.stringify(te)}` };
    const chunks: Buffer[] = [];
    for (;;) {
      const eol = buf.indexOf('\r\n', pos);
      if (eol < 0) return buf.length - pos > 4096 ? { kind: 'error', reason: 'chunk size line too long' } : { kind: 'more' };
      const sizeLine = buf.subarray(pos, eol).toString('latin1');
      const sm = /^([0-9a-fA-F]{1,12})(;[^\r\n\x00]*)?$/.exec(sizeLine);
      if (!sm) return { kind: 'error', reason: `bad chunk size line ${JSON.stringify(sizeLine.slice(0, 80))}` };
      const size = parseInt(sm[1]!, 16);
      pos = eol + 2;
      if (size === 0) {
        // Trailers, then the empty line.
        for (;;) {
          const tEol = buf.indexOf('\r\n', pos);
          if (tEol < 0) return { kind: 'more' };
          const tLine = buf.subarray(pos, tEol).toString('latin1');
          pos = tEol + 2;
          if (tLine === '') break;
          const t = parseHeaderLines([tLine]);
          if (typeof t === 'string') return { kind: 'error', reason: `trailer: ${t}` };
        }
        const body = Buffer.concat(chunks);
        return { kind: 'done', value: { method, target, headers, bodyLength: body.length, body }, used: pos - start };
      }
      if (buf.length < pos + size + 2) return { kind: 'more' };
      chunks.push(buf.subarray(pos, pos + size));
      if (buf[pos + size] !== 13 || buf[pos + size + 1] !== 10) return { kind: 'error', reason: 'chunk data not followed by CRLF' };
      pos += size + 2;
    }
  }
  if (cl.length > 1) return { kind: 'error', reason: `${cl.length} Content-Length headers` };
  const n = cl.length ? cl[0]! : '0';
  if (!/^\d{1,15}$/.test(n)) return { kind: 'error', reason: `bad Content-Length ${JSON.stringify(n)}` };
  const len = Number(n);
  if (buf.length < pos + len) return { kind: 'more' };
  const body = buf.subarray(pos, pos + len);
  return { kind: 'done', value: { method, target, headers, bodyLength: len, body }, used: pos + len - start };
}

export interface WireResponse {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

export function header(headers: [string, string][], name: string): string | undefined {
  const n = name.toLowerCase();
  return headers.find(([k]) => k.toLowerCase() === n)?.[1];
}

/**
 * Splits what a client received into responses. Lenient (it reads what proxies and
 * Node write); `eof` says the connection ended, so a body without framing runs to the end.
 * Returns the responses and whether trailing bytes could not be read as a response.
 */
export function parseResponses(buf: Buffer, eof: boolean): { responses: WireResponse[]; garbage: boolean } {
  const responses: WireResponse[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const end = buf.indexOf(CRLF2, pos);
    if (end < 0) return { responses, garbage: true };
    const lines = buf.subarray(pos, end).toString('latin1').split(/\r\n/);
    const m = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0]!);
    if (!m) return { responses, garbage: true };
    const status = Number(m[1]);
    const headers = lines.slice(1).map((l): [string, string] => {
      const i = l.indexOf(':');
      return [l.slice(0, i), l.slice(i + 1).trim()];
    });
    pos = end + 4;
    const cl = header(headers, 'content-length');
    const te = header(headers, 'transfer-encoding');
    let body: Buffer = Buffer.alloc(0);
    const bodyless = (status >= 100 && status < 200) || status === 204 || status === 304;
    if (bodyless) {
      // no body
    } else if (te && /chunked/i.test(te)) {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = buf.indexOf('\r\n', pos);
        if (eol < 0) return { responses, garbage: eof };
        const size = parseInt(buf.subarray(pos, eol).toString('latin1'), 16);
        if (Number.isNaN(size)) return { responses, garbage: true };
        pos = eol + 2;
        if (size === 0) {
          const tEnd = buf.indexOf('\r\n', pos);
          pos = tEnd < 0 ? buf.length : tEnd + 2;
          break;
        }
        parts.push(buf.subarray(pos, pos + size));
        pos += size + 2;
      }
      body = Buffer.concat(parts);
    } else if (cl !== undefined) {
      const n = Number(cl);
      // A response to HEAD carries Content-Length without a body: nothing (or the next
      // response) follows its head.
      const headLike = buf.length === pos || buf.subarray(pos, pos + 7).toString('latin1') === 'HTTP/1.';
      if (buf.length < pos + n && headLike) {
        responses.push({ status, headers, body });
        continue;
      }
      if (buf.length < pos + n) return { responses, garbage: eof };
      body = buf.subarray(pos, pos + n);
      pos += n;
    } else {
      body = buf.subarray(pos);
      pos = buf.length;
    }
    responses.push({ status, headers, body });
  }
  return { responses, garbage: false };
}
