/**
 * Importing the same file twice used to make two sessions with one name, and
 * `sessions export NAME` then failed. Names are now unique ("page (2)"), the
 * import says so, and a rename to a name in use is refused. Real child process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readHarFile } from '../../src/har/reader.js';
import { uniqueName } from '../../src/sessions/unique-name.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(HERE, '../../../bin/netlens.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-unique-names-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'sessions', ...args, '--data-dir', path.join(dir, 'data')], { timeout: 60_000 }, (e, out, err) => {
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}

describe('session names are unique', () => {
  it('the same file imported twice: "page" and "page (2)", both exportable by name; rename to a taken name is refused', async () => {
    const file = path.join(dir, 'page.har');
    fs.copyFileSync(path.join(HERE, '../fixtures/har/insomnia.har'), file);
    const first = await run(['import', file]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^imported 1 entry as "page" \(\S+\)\n$/);
    const second = await run(['import', file]);
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/imported 1 entry as "page \(2\)"/);
    expect(second.out).toMatch(/a session was already named "page": session names are unique, so this one is "page \(2\)"/);
    expect((await run(['import', file])).out).toMatch(/as "page \(3\)"/);

    for (const name of ['page', 'page (2)']) {
      const out = path.join(dir, `${name}.har`);
      const r = await run(['export', name, out]);
      expect(r.err).toBe('');
      expect(r.out).toMatch(/^wrote 1 entry \(/);
      expect(r.code).toBe(0);
      expect((await readHarFile(out)).har?.log.entries.length).toBe(1);
    }

    const clash = await run(['rename', 'page (3)', 'page']);
    expect(clash.code).toBe(1);
    expect(clash.err).toMatch(/is already named "page"; names are unique, choose another one.*NL_SESSION_NAME_TAKEN/);
    expect((await run(['rename', 'page (3)', 'other'])).out).toMatch(/renamed \S+ to "other"/);
    const list = await run(['list']);
    expect(list.out.match(/ 1 entry {3}/g)?.length).toBe(3);
  }, 60_000);

  it('uniqueName', () => {
    expect(uniqueName('a', [])).toBe('a');
    expect(uniqueName('a', ['a'])).toBe('a (2)');
    expect(uniqueName('a', ['a', 'a (2)'])).toBe('a (3)');
    expect(uniqueName('a (2)', ['a', 'a (2)'])).toBe('a (3)');
    expect(uniqueName('(2)', ['(2)'])).toBe('(2) (2)');
    expect(uniqueName('', [''])).toBe(' (2)');
  });
});
