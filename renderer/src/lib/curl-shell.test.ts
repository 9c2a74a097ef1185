/**
 * "Copy as cURL" run for real: each command goes through `sh -c` (and bash when
 * present) with a fake `curl` first on PATH that records its argv and stdin.
 * Hostile methods, URLs, headers and bodies must run nothing (no file appears)
 * and curl must receive exactly the intended arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CurlError, toCurl } from './curl';
import type { HeaderList } from '../../../proxy/src/api/contract';

let dir: string;
let work: string;
const shells = ['sh', ...(spawnSync('bash', ['-c', 'exit 0']).status === 0 ? ['bash'] : [])];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-curl-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  work = path.join(dir, 'work');
  fs.mkdirSync(work);
  const fake = path.join(dir, 'bin', 'curl');
  fs.writeFileSync(
    fake,
    `#!${process.execPath}\nconst fs = require('fs');\n` +
      `fs.writeFileSync(process.env.CURL_LOG, JSON.stringify({ argv: process.argv.slice(2), stdin: fs.readFileSync(0).toString('base64') }));\n`,
    { mode: 0o755 },
  );
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the command as a user pasting it would; returns what curl received. */
function run(shell: string, command: string): { argv: string[]; stdin: Buffer } {
  const log = path.join(dir, 'curl.json');
  fs.rmSync(log, { force: true });
  const r = spawnSync(shell, ['-c', command], {
    cwd: work,
    env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, CURL_LOG: log, HOME: work, PWNED: path.join(work, 'pwned-env') },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  expect(r.status, `${shell} failed: ${r.stderr}\n${command}`).toBe(0);
  expect(fs.readdirSync(work), `something ran: ${command}`).toEqual([]);
  const got = JSON.parse(fs.readFileSync(log, 'utf8')) as { argv: string[]; stdin: string };
  return { argv: got.argv, stdin: Buffer.from(got.stdin, 'base64') };
}

const PAYLOADS = [
  '$(touch pwned)',
  '`touch pwned`',
  '; touch pwned; ',
  "'; touch pwned; echo '",
  '"; touch pwned; echo "',
  '\\$(touch pwned)',
  '| touch pwned',
  '&& touch pwned',
  '\ntouch pwned\n',
  '\r\ntouch pwned #',
  '\x15touch pwned', // ^U: erases the line when pasted into readline
  '\x1b[2K\x1b[1Atouch pwned', // terminal escapes
  '\x03\x04\x1a',
  '$PWNED ${PWNED} ~ * ? [a] {a,b} !! !$ #',
  '\u202Etouch pwned\u202C', // bidi override
  '\u0085 C1 and \u2028 separators',
  'tab\there',
  'ünïcödé 日本語 🚀',
];

describe('Copy as cURL in a real shell', () => {
  it.each(shells)('%s: hostile methods reach curl as one argument and run nothing', (shell) => {
    for (const p of PAYLOADS) {
      const method = `GET${p}`;
      expect(run(shell, toCurl({ method, url: 'http://a.test/', headers: [] })).argv).toEqual(['http://a.test/', '-X', method]);
    }
  });

  it.each(shells)('%s: hostile URLs, header names and values, and bodies arrive exactly', (shell) => {
    for (const p of PAYLOADS) {
      const url = `http://a.test/${p}?q=${p}`;
      const headers: HeaderList = [
        [':method', 'POST'],
        ['Host', 'a.test'],
        [`X-${p}`, `v${p}`],
        ['x-plain', `it's "quoted"`],
      ];
      const body = `{"a":"${p}"}${p}`;
      const { argv } = run(shell, toCurl({ method: 'POST', url, headers, body }));
      const globoff = /[[\]{}]/.test(url) ? ['--globoff'] : [];
      const expected = [url, ...globoff, '-X', 'POST', '-H', `X-${p}: v${p}`, '-H', `x-plain: it's "quoted"`, '--data-raw', body];
      expect(argv).toEqual(expected);
    }
  });

  it.each(shells)('%s: a URL starting with "-" is passed with --url, never read as an option', (shell) => {
    expect(run(shell, toCurl({ method: 'GET', url: '-o pwned', headers: [] })).argv).toEqual(['--url', '-o pwned']);
  });

  it.each(shells)('%s: a body with NULs and every byte value is piped to --data-binary @- exactly', (shell) => {
    let body = '-\0%s%%\\n\\0\'"$(touch pwned)`touch pwned`\n\r\x1b';
    for (let c = 0; c < 0x300; c++) body += String.fromCharCode(c);
    const { argv, stdin } = run(shell, toCurl({ method: 'PUT', url: 'http://a.test/', headers: [], body }));
    expect(argv).toEqual(['http://a.test/', '-X', 'PUT', '--data-binary', '@-']);
    expect(stdin.equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it.each(shells)('%s: lone surrogates (no UTF-8 form) become U+FFFD; an empty header value is sent as "Name;"', (shell) => {
    const { argv } = run(shell, toCurl({ method: 'POST', url: 'http://a.test/\uD800', headers: [['x-empty', '']], body: 'a\uDC00b' }));
    expect(argv).toEqual(['http://a.test/\uFFFD', '-X', 'POST', '-H', 'x-empty;', '--data-raw', 'a\uFFFDb']);
  });
});

describe('Copy as cURL: what no command can carry', () => {
  it('refuses a NUL in the method, URL or a header, and a header name curl would read as a file', () => {
    expect(() => toCurl({ method: 'G\0ET', url: 'http://a.test/', headers: [] })).toThrow(CurlError);
    expect(() => toCurl({ method: 'GET', url: 'http://a.test/\0', headers: [] })).toThrow(/URL contains a NUL/);
    expect(() => toCurl({ method: 'GET', url: 'http://a.test/', headers: [['x', 'a\0b']] })).toThrow(/header "x" contains a NUL/);
    expect(() => toCurl({ method: 'GET', url: 'http://a.test/', headers: [['@/etc/passwd', 'x']] })).toThrow(/file name/);
  });

  it('keeps pasted text free of control characters', () => {
    const cmd = toCurl({
      method: 'GET\x1b',
      url: 'http://a.test/\x15',
      headers: [['x', '\t\x07\u202E']],
      body: 'a\x00'.slice(0, 1) + '\x7f\u0085',
    });
    expect(cmd).not.toMatch(/[\0-\x09\x0B-\x1F\x7F-\x9F\u202A-\u202E]/);
  });
});
