/**
 * The tests' in-memory session backend (fake-backends.ts) keeps an import as it came (the UI's views are
 * total over odd JSON) but opens it normalized: replay and resend read
 * `StoredSession.log` as a strict HarLog, as they do from the real store.
 */
import { describe, expect, it } from 'vitest';
import { parseHarText } from '../../src/api/har-text.js';
import { memorySessions } from './fake-backends.js';

describe('memorySessions', () => {
  it('opens a normalized log, and keeps the import as it came for the entry views and export', async () => {
    const sessions = memorySessions();
    const odd = { log: { entries: [{ request: { url: 'http://a.test/', headers: 'nope' } }, 'x'] } };
    const info = await sessions.importHar('odd.har', JSON.stringify(odd));
    const { log } = await sessions.open(info.id);
    expect(log.entries).toHaveLength(2);
    expect(log.entries[0]!.request).toMatchObject({ method: '', url: 'http://a.test/', headers: [], cookies: [], bodySize: -1 });
    expect(log.entries[0]!.response).toMatchObject({ status: 0, content: { size: 0, mimeType: 'x-unknown' } });
    expect(log.entries[1]!.timings).toMatchObject({ send: 0, wait: 0, receive: 0 });
    const { entries } = await sessions.entries(info.id);
    expect(await entries.entry(1)).toBe('x');
    expect(JSON.parse((await sessions.exportHar(info.id)).text)).toEqual(odd);
  });

  it('parseHarText refuses what is not a HAR', () => {
    expect(() => parseHarText('a.har', '{')).toThrow(/not valid JSON/);
    expect(() => parseHarText('a.har', '{"log":{}}')).toThrow(/no "log.entries" array/);
    expect(parseHarText('a.har', '\ufeff{"log":{"entries":[]}}').entries).toEqual([]);
  });
});
