import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseHar, readHarFile } from '../../src/har/reader.js';
import { schemaProblems } from '../../src/har/schema.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import { makeExchange } from './make-exchange.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/har');
const fixture = (name: string) => path.join(FIXTURES, name);
const REAL = [
  'chrome.har',
  'firefox.har',
  'safari.har',
  'charles.har',
  'insomnia.har',
  'postdata.har',
  'head-content-length.har',
  'with-bom.har',
  'websocket.har',
  'error_log.har',
  'corrupted_gzip_body.har',
  'chrome-har-capturer.har',
  'netlens-proxy.har',
];

function minimal(entries: unknown[] = [entry()]) {
  return { log: { version: '1.2', creator: { name: 't', version: '1' }, pages: [], entries } };
}
function entry(over: Record<string, unknown> = {}) {
  return JSON.parse(JSON.stringify({ ...exchangeToEntry(makeExchange()), ...over }));
}

describe('reading real HAR files', () => {
  it.each(REAL)('%s opens, and what is read validates against the schema', async (name) => {
    const raw = JSON.parse(fs.readFileSync(fixture(name), 'utf8').replace(/^\uFEFF/, ''));
    const result = await readHarFile(fixture(name));
    expect(result.errors).toEqual([]);
    expect(result.har!.log.entries.length).toBe(raw.log.entries.length);
    expect(schemaProblems(result.har)).toEqual([]);
    // What was read is clean: written out again (as Netlens exports it), it has no warnings.
    expect(parseHar(JSON.stringify(result.har)).warnings).toEqual([]);
  });

  it('keeps unknown _ fields as they are', async () => {
    const { har } = await readHarFile(fixture('chrome.har'));
    const raw = JSON.parse(fs.readFileSync(fixture('chrome.har'), 'utf8'));
    expect(har!.log.entries[0]._initiator).toEqual(raw.log.entries[0]._initiator);
    expect(har!.log.entries[0]._resourceType).toBe(raw.log.entries[0]._resourceType);
    const ws = await readHarFile(fixture('websocket.har'));
    expect(ws.har!.log.entries.some((e) => Array.isArray(e._webSocketMessages))).toBe(true);
  });

  it('reports the deviations of real tools as warnings with the field path', async () => {
    const bom = await readHarFile(fixture('with-bom.har'));
    expect(bom.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/byte-order mark/));
    const charles = await readHarFile(fixture('charles.har'));
    expect(charles.warnings).toContainEqual(expect.objectContaining({ path: 'log.entries[0].response.redirectURL' }));
    expect(charles.har!.log.entries[0].response.redirectURL).toBe('');
    const firefox = await readHarFile(fixture('firefox.har'));
    const cache = firefox.warnings.find((w) => w.path.endsWith('cache.afterRequest'));
    expect(cache?.count).toBeGreaterThan(1); // grouped over entries
    expect(firefox.har!.log.entries.find((e) => e.cache._afterRequest)).toBeDefined();
  });

  it('reads [::1] server addresses and URLs with spaces, with warnings', () => {
    const result = parseHar(
      JSON.stringify(
        minimal([entry({ serverIPAddress: '[::1]' }), entry({ request: { ...entry().request, url: 'http://example.test/a b' } })]),
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((w) => w.path)).toEqual(['log.entries[0].serverIPAddress', 'log.entries[1].request.url']);
    expect(result.har!.log.entries[0].serverIPAddress).toBe('::1');
    expect(result.har!.log.entries[1].request.url).toBe('http://example.test/a%20b');
    expect(schemaProblems(result.har)).toEqual([]);
  });

  it('reads a real Chrome page load recorded by the Netlens proxy with no warnings, matching the browser-side HAR', async () => {
    const proxySide = await readHarFile(fixture('netlens-proxy.har'));
    const browserSide = await readHarFile(fixture('chrome-har-capturer.har'));
    expect(proxySide.warnings).toEqual([]);
    const urls = (r: typeof proxySide) => r.har!.log.entries.map((e) => `${e.request.method} ${e.request.url}`).sort();
    expect(urls(proxySide)).toEqual(urls(browserSide));
    // One navigation: every request belongs to its page.
    expect(proxySide.har!.log.pages).toHaveLength(1);
    expect(new Set(proxySide.har!.log.entries.map((e) => e.pageref))).toEqual(new Set(['page_1']));
  });

  it('has no warnings at all for a HAR that Netlens writes', () => {
    const result = parseHar(JSON.stringify(minimal([entry(), entry()])));
    expect(result.warnings).toEqual([]);
    expect(result.errors).toEqual([]);
  });
});

describe('unusable HAR files give named errors and no HAR', () => {
  const cases: Array<[string, string, string | RegExp]> = [
    ['not JSON', 'hello', /not valid JSON/],
    ['not JSON, with a position', '{"log": 1 2}', /not valid JSON at line 1, column 11/],
    ['an empty file', '', /empty/],
    ['a JSON array', '[]', /not an object/],
    ['no log', '{"foo":1}', 'log: missing (not a HAR file)'],
    ['no log.entries', '{"log":{"version":"1.2","creator":{"name":"x","version":"1"}}}', 'log.entries: missing'],
    ['entries not an array', '{"log":{"entries":{}}}', 'log.entries: must be an array'],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    const result = parseHar(text);
    expect(result.har).toBeUndefined();
    const first = result.errors[0];
    const line = `${first.path ? `${first.path}: ` : ''}${first.message}`;
    if (typeof expected === 'string') expect(line).toBe(expected);
    else expect(line).toMatch(expected);
  });

  it('names the first entry without request or response', () => {
    const entries = [entry(), entry(), entry(), entry()];
    delete entries[3].request;
    delete entries[2].response;
    const result = parseHar(JSON.stringify(minimal(entries)));
    expect(result.har).toBeUndefined();
    expect(result.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'log.entries[2].response: missing',
      'log.entries[3].request: missing',
    ]);
  });

  it('says a cut-off file is truncated', () => {
    const text = fs.readFileSync(fixture('chrome.har'), 'utf8');
    for (const cut of [text.length / 2, text.length - 3, 200]) {
      const result = parseHar(text.slice(0, Math.floor(cut)));
      expect(result.har).toBeUndefined();
      expect(result.errors[0].message).toMatch(/truncated/);
    }
  });

  it('rejects the broken fixture with its line and column', async () => {
    const result = await readHarFile(fixture('broken-truncated.har'));
    expect(result.har).toBeUndefined();
    expect(result.errors[0].message).toMatch(/line 5, column 1/);
  });

  it('says so when the file does not exist', async () => {
    const result = await readHarFile(fixture('nope.har'));
    expect(result.errors[0].message).toMatch(/no such file/);
  });
});
