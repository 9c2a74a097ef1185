/**
 * HAR files with one huge field (issue 13 item 3): written to a temp file in
 * pieces, so the test process never builds the whole HAR as one string. Each
 * file holds three entries: a normal one, the hostile one, another normal one.
 */
import fs from 'node:fs';
import path from 'node:path';

export type BigField = 'request-header' | 'url' | 'response-header' | 'many-headers' | 'cookie' | 'post-data' | 'response-body';

export const MiB = 1024 * 1024;

function entryJson(
  url: string,
  extra: { reqHeaders?: string; respHeaders?: string; cookies?: string; postData?: string; content?: string } = {},
): string {
  const reqHeaders = extra.reqHeaders ?? '[{"name":"Accept","value":"*/*"}]';
  const respHeaders = extra.respHeaders ?? '[{"name":"Content-Type","value":"text/plain"}]';
  return (
    `{"startedDateTime":"2026-01-01T00:00:00.000Z","time":10,` +
    `"request":{"method":"${extra.postData ? 'POST' : 'GET'}","url":${url},"httpVersion":"HTTP/1.1","headers":${reqHeaders},"queryString":[],` +
    `"cookies":${extra.cookies ?? '[]'},${extra.postData ? `"postData":${extra.postData},` : ''}"headersSize":-1,"bodySize":-1},` +
    `"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":${respHeaders},"cookies":[],` +
    `"content":${extra.content ?? '{"size":2,"mimeType":"text/plain","text":"ok"}'},"redirectURL":"","headersSize":-1,"bodySize":2},` +
    `"cache":{},"timings":{"send":1,"wait":8,"receive":1}}`
  );
}

const MARK = '\u0000HUGE\u0000';

/** The hostile entry's JSON with MARK where the huge value goes. */
function hostile(field: BigField): string {
  const url = '"http://big.test/huge"';
  switch (field) {
    case 'request-header':
      return entryJson(url, { reqHeaders: `[{"name":"Accept","value":"*/*"},{"name":"X-Huge","value":"${MARK}"}]` });
    case 'url':
      return entryJson(`"http://big.test/huge?q=${MARK}"`);
    case 'response-header':
      return entryJson(url, { respHeaders: `[{"name":"Content-Type","value":"text/plain"},{"name":"X-Huge","value":"${MARK}"}]` });
    case 'cookie':
      return entryJson(url, { reqHeaders: `[{"name":"Cookie","value":"big=${MARK}"}]`, cookies: `[{"name":"big","value":"${MARK}"}]` });
    case 'post-data':
      return entryJson(url, { postData: `{"mimeType":"text/plain","text":"${MARK}"}` });
    case 'response-body':
      return entryJson(url, { content: `{"size":-1,"mimeType":"text/plain","text":"${MARK}"}` });
    case 'many-headers':
      return entryJson(url, { reqHeaders: MARK });
  }
}

/**
 * Writes `<dir>/<field>.har`; `size` is the huge value's length in bytes
 * (or the header count for `many-headers`). Returns the file path.
 */
export function writeBigHar(dir: string, field: BigField, size: number): string {
  const file = path.join(dir, `${field}.har`);
  const fd = fs.openSync(file, 'w');
  try {
    const head = `{"log":{"version":"1.2","creator":{"name":"big-har","version":"1"},"pages":[],"entries":[${entryJson('"http://small.test/first"')},`;
    const tail = `,${entryJson('"http://small.test/last"')}]}}`;
    // Cookie entries carry the value twice (header and cookies[]): both are huge.
    const parts = hostile(field).split(MARK);
    fs.writeSync(fd, head);
    for (let p = 0; p < parts.length; p++) {
      fs.writeSync(fd, parts[p]!);
      if (p === parts.length - 1) break;
      if (field === 'many-headers') writeManyHeaders(fd, size);
      else writeRepeated(fd, 'a', size);
    }
    fs.writeSync(fd, tail);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

function writeRepeated(fd: number, ch: string, size: number): void {
  const chunk = Buffer.alloc(MiB, ch);
  for (let left = size; left > 0; left -= MiB) fs.writeSync(fd, chunk, 0, Math.min(MiB, left));
}

function writeManyHeaders(fd: number, count: number): void {
  let text = '';
  for (let i = 0; i < count; i++) {
    text += `${i ? ',' : '['}{"name":"X-H${i}","value":"v${i}"}`;
    if (text.length > MiB) {
      fs.writeSync(fd, text);
      text = '';
    }
  }
  fs.writeSync(fd, text + ']');
}
