/**
 * What the CLI does at startup that maps megabytes of Node's own code and data into
 * the process (bin/cli-entry.js, proxy/src/cli/commands/lab.ts; docs/benchmarks.md, idle
 * memory): ICU's locale data, loaded by the first toLocaleString, and V8's optimizing
 * compiler, used for the first time when a function gets hot. Each is checked in a fresh
 * Node process, since this test runner has done both already.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript shared with scripts/build-cli.mjs, no types
import { CHILD_ENTRIES } from '../../../scripts/lab-children.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

// Counts calls into ICU's formatters and collators while the CLI's modules load and its help is built.
const icuProbe = `
let calls = [];
const wrap = (o, k) => { const f = o[k]; o[k] = function (...a) { calls.push(k); return f.apply(this, a); }; };
wrap(Number.prototype, 'toLocaleString');
wrap(Date.prototype, 'toLocaleString');
wrap(String.prototype, 'localeCompare');
for (const k of ['NumberFormat', 'DateTimeFormat', 'Collator']) {
  const C = Intl[k];
  Intl[k] = function (...a) { calls.push(k); return new C(...a); };
}
const cli = await import(${JSON.stringify(path.join(ROOT, 'proxy/src/cli/main.ts'))});
const atLoad = calls;
calls = [];
await cli.main(['lab', '--help'], { stdout: { write: () => true }, stderr: { write: () => true } });
console.log(JSON.stringify({ atLoad, labHelp: calls.length > 0 }));
`;

describe('CLI startup memory', () => {
  it('loading the CLI formats nothing with ICU (the lab help formats its ranges only when shown)', async () => {
    const out = await run(['--import', 'tsx', '--input-type=module', '-e', icuProbe]);
    const r = JSON.parse(out.trim().split('\n').pop()!) as { atLoad: string[]; labHelp: boolean };
    expect(r.atLoad).toEqual([]);
    // The probe does see ICU calls: showing the lab help makes them.
    expect(r.labHelp).toBe(true);
  }, 40_000);

  it("choosing the CLI entry (a walk over every source file's mtime) gets no function optimized", async () => {
    const entry = JSON.stringify(path.join(ROOT, 'bin/cli-entry.js'));
    // Twice, for a margin: the CLI walks once; with path.join one walk was enough to get path's normalizer optimized.
    const script = `const { cliEntry } = await import(${entry}); for (let i = 0; i < 2; i++) cliEntry(${JSON.stringify(ROOT)}); console.log('done');`;
    const out = await run(['--trace-opt', '--input-type=module', '-e', script]);
    expect(out).toContain('done');
    expect(out.split('\n').filter((l) => l.includes('completed optimizing'))).toEqual([]);
  }, 40_000);

  // V8 keeps a script's source in the heap for as long as it runs, one byte per character while
  // every character is Latin-1, two bytes from the first one that is not: a single "→" in a comment
  // esbuild keeps doubled the CLI bundle's 0.6 MB (docs/benchmarks.md, idle memory).
  it('the bundles the CLI, the app and the lab run are Latin-1 only, so V8 keeps their source at one byte per character', async () => {
    const entries = ['proxy/src/cli/main.ts', 'electron/main.ts', ...(Object.values(CHILD_ENTRIES) as string[])];
    for (const entry of entries) {
      const out = await build({
        absWorkingDir: ROOT,
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        packages: 'external',
        write: false,
        logLevel: 'silent',
      });
      const text = out.outputFiles[0]!.text;
      expect(text.length).toBeGreaterThan(10_000);
      const wide = text.split('\n').filter((l) => /[^\u0000-\u00ff]/.test(l));
      expect({ entry, wide }).toEqual({ entry, wide: [] });
    }
  }, 60_000);
});
