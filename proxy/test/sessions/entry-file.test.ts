/** The HAR entry scanner behind opened sessions: offsets of every entry, whatever the strings hold. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EntryFile, scanHarEntries } from '../../src/sessions/entry-file.js';
import { writeHar } from '../../src/har/writer.js';
import type { HarEntry } from '../../src/har/types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-entry-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const RUNS = Number(process.env.NETLENS_FUZZ_RUNS) || 60;
let n = 0;

async function entriesOf(text: string): Promise<unknown[]> {
  const file = path.join(dir, `t${n++}.har`);
  fs.writeFileSync(file, text);
  const ef = await EntryFile.har(file);
  const out: unknown[] = [];
  for await (const e of ef.all()) out.push(e);
  // Random access gives the same entries as the sequential read.
  for (let i = ef.count - 1; i >= 0; i--) expect(await ef.entry(i)).toEqual(out[i]);
  return out;
}

describe('scanHarEntries / EntryFile', () => {
  it('finds every entry of compact and pretty HARs whose strings hold quotes, backslashes, brackets and keys named "entries"', async () => {
    const str = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ':', ',', 'ü', '😀', '\n', 'entries', 'log') });
    const request = fc.record({ url: str, headers: fc.array(fc.record({ name: str, value: str }), { maxLength: 3 }) });
    const entry = fc.record({ startedDateTime: str, request, entries: fc.array(str, { maxLength: 2 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 5 }), str, fc.boolean(), async (entries, comment, pretty) => {
        const har = {
          log: { version: '1.2', comment, creator: { name: comment, version: '1' }, pages: [], entries, after: { entries: [1, 2] } },
        };
        const got = await entriesOf(pretty ? JSON.stringify(har, null, 2) : JSON.stringify(har));
        expect(got).toEqual(entries);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });

  it('reads the files Netlens writes, head included', async () => {
    const file = path.join(dir, 'written.har');
    const entries = [
      { startedDateTime: 'x', request: { url: 'a"]}' } },
      { startedDateTime: 'y', request: { url: '\\' } },
    ] as unknown as HarEntry[];
    await writeHar(
      file,
      { creator: { name: 'n', version: '1' }, pages: [{ id: 'p', title: '[{', startedDateTime: 'z' } as never] },
      entries,
    );
    const scan = await scanHarEntries(file);
    expect(scan.entries.length).toBe(2);
    expect((scan.head.log as { pages: unknown[]; entries: unknown[] }).pages).toHaveLength(1);
    expect((scan.head.log as { entries: unknown[] }).entries).toEqual([]);
    expect((await EntryFile.har(file)).pages[0]).toMatchObject({ id: 'p', title: '[{' });
  });

  it('refuses what is not a HAR it can index, with a reason', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"log":{"entries":[{"a":1}', /ends before/],
      ['{"log":{"entries":[{"a":"1}]}}', /ends before/],
      ['{"log":{"pages":[]}}', /no "log.entries"/],
      ['{"log":{"entries":[1,2]}}', /not an object/],
      ['{"entries":[{}]}', /no "log.entries"/],
      ['{"log":{"entries":[]}}}', /unbalanced/],
      ['{"log":{"entries":[]},,}', /not valid JSON/],
    ];
    for (const [text, reason] of cases) {
      const file = path.join(dir, `bad${n++}.har`);
      fs.writeFileSync(file, text);
      await expect(EntryFile.har(file), text).rejects.toThrow(reason);
    }
    await expect(EntryFile.har(path.join(dir, 'missing.har'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
