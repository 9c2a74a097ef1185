/**
 * Every script a user can run answers --help: usage on stdout, exit 0, no stack
 * trace (`npm run bench -- --help` used to end in a parseArgs stack trace). A flag
 * a script does not take is a usage error (exit 2) that prints the usage. Real
 * child processes, as a user runs them (npm for the npm scripts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function run(cmd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: ROOT, timeout: 90_000, env: { ...process.env, NO_COLOR: '1' } }, (e, out, err) => {
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}
const script = (file: string, args: string[]) =>
  run(process.execPath, [...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), file, ...args]);

/** Runs `jobs` at most `n` at a time (the machine is shared: no 30 processes at once). */
async function limited<T>(jobs: (() => Promise<T>)[], n = 3): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

/** Every runnable script: the bench and soak entry points, the bench's child processes, scripts/. */
const SCRIPTS = [
  'bench/run.ts',
  'bench/profile.ts',
  'bench/live-100k.ts',
  'bench/render-100k.ts',
  'bench/soak/soak.ts',
  'bench/soak/journal-flush-cost.ts',
  'bench/soak/journal-stop.ts',
  'bench/servers/origin.ts',
  'bench/load/https-client.ts',
  'bench/load/h2-burst.ts',
  'bench/h2-paired.ts',
  'bench/https-paired.ts',
  'bench/lab-load.ts',
  'bench/load/https-paired-client.ts',
  'bench/large-profile.ts',
  // Modules (index.ts, nginx.ts: a config writer the bench imports) are not scripts.
  ...fs
    .readdirSync(path.join(ROOT, 'bench/peers'))
    .filter((f) => f.endsWith('.ts') && !['index.ts', 'nginx.ts'].includes(f))
    .map((f) => `bench/peers/${f}`),
  'bench/rules-match.ts',
  'bench/recording-block.ts',
  'bench/app-body-block.ts',
  'scripts/rules-schema.ts',
  'scripts/build-cli.mjs',
  'scripts/build-electron.mjs',
  'scripts/lock-optional-platforms.mjs',
  'scripts/test.js',
];

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);

describe('--help everywhere', () => {
  it('every script prints its usage and exits 0', async () => {
    const lockBefore = fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');
    const results = await limited(SCRIPTS.map((f) => () => script(f, ['--help'])));
    for (const [i, r] of results.entries()) {
      expect({ script: SCRIPTS[i], code: r.code, usage: r.out.startsWith('Usage:') }).toEqual({ script: SCRIPTS[i], code: 0, usage: true });
      noStack(r.err);
    }
    // --help must not do the script's job (this one rewrites the lock file).
    expect(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).toBe(lockBefore);
  }, 300_000);

  it('npm run bench -- --help and npm run soak -- --help, through npm', async () => {
    for (const name of ['bench', 'soak']) {
      const r = await run('npm', ['run', '--silent', name, '--', '--help']);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`^Usage: npm run ${name} -- \\[`));
      noStack(r.err);
    }
  }, 120_000);

  it('an unknown flag or a bad value is a usage error (exit 2) with the usage, not a stack trace', async () => {
    const cases: [string, string[], RegExp][] = [
      ['bench/run.ts', ['--bogus'], /Unknown option '--bogus'/],
      ['bench/run.ts', ['--rounds', 'many'], /--rounds must be a whole number from 1 to 1000 \(got "many"\)/],
      ['bench/run.ts', ['--only', 'plain,video'], /--only takes plain,https,large,page \(got "video"\)/],
      ['bench/profile.ts', ['http3'], /the load is https, plain, h2 or page \(got "http3"\)/],
      ['bench/h2-paired.ts', ['netlens', 'mitmproxy'], /unknown subject "mitmproxy"/],
      ['bench/h2-paired.ts', ['netlens'], /give two subjects, A and B/],
      ['bench/h2-paired.ts', ['toString', 'netlens'], /unknown subject "toString"/],
      ['bench/h2-paired.ts', ['netlens:2:1', 'netlens'], /unknown subject "netlens:2:1"/],
      ['bench/h2-paired.ts', ['recorder-on', 'netlens'], /recorder-\* subjects go together \(one process\)/],
      ['bench/https-paired.ts', ['netlens', 'mitmproxy'], /unknown subject "mitmproxy"/],
      ['bench/https-paired.ts', ['toString', 'netlens'], /unknown subject "toString"/],
      ['bench/https-paired.ts', ['recorder-on', 'netlens'], /recorder-\* subjects go together \(one process\)/],
      ['bench/https-paired.ts', ['--window', '5', 'netlens', 'netlens'], /--window must be a whole number from 50/],
      ['bench/lab-load.ts', ['lab', 'mitmproxy'], /unknown subject "mitmproxy"/],
      ['bench/lab-load.ts', [], /give at least one subject/],
      ['bench/lab-load.ts', ['--paced', 'lab'], /--paced paces HTTP\/2 streams: give --h2 too/],
      ['bench/lab-load.ts', ['--competitors', '9', 'lab'], /--competitors must be a whole number from 0 to 8 \(got "9"\)/],
      ['bench/large-profile.ts', ['--only', 'up-https,sideways'], /--only takes up-http,up-https,down-http,down-https \(got "sideways"\)/],
      ['bench/large-profile.ts', ['--floor', '--base', 'x.mjs'], /--floor and --base each add a second proxy/],
      ['bench/large-profile.ts', ['--age', 'long'], /--age must be a whole number from 0 to 3600 \(got "long"\)/],
      ['bench/large-profile.ts', ['--timeline', 'yes'], /--timeline takes 0 or 1 \(got "yes"\)/],
      ['bench/soak/soak.ts', ['--requests', 'lots'], /--requests must be a whole number from 1 to 100000000 \(got "lots"\)/],
      ['bench/soak/journal-stop.ts', ['1', '2', '3'], /unexpected argument "3"/],
      ['bench/soak/journal-stop.ts', ['--lines', 'har'], /--lines is exchange or entry \(got "har"\)/],
      ['scripts/test.js', ['--e2e-only'], /unexpected argument: --e2e-only/],
      ['scripts/build-cli.mjs', ['--watch'], /unexpected argument: --watch/],
    ];
    const results = await limited(
      cases.map(
        ([f, args]) =>
          () =>
            script(f, args),
      ),
    );
    for (const [i, r] of results.entries()) {
      expect({ case: cases[i][0] + ' ' + cases[i][1].join(' '), code: r.code }).toEqual({
        case: cases[i][0] + ' ' + cases[i][1].join(' '),
        code: 2,
      });
      expect(r.err).toMatch(cases[i][2]);
      expect(r.err).toMatch(/\n\nUsage: /);
      noStack(r.err);
    }
  }, 300_000);

  it('netlens and every netlens command answer --help', async () => {
    const bin = path.join(ROOT, 'bin/netlens.js');
    const names = ['', ...commands.map((c) => c.name)];
    const results = await limited(names.map((n) => () => run(process.execPath, [bin, ...(n ? [n] : []), '--help'])));
    for (const [i, r] of results.entries()) {
      expect({ command: names[i], code: r.code }).toEqual({ command: names[i], code: 0 });
      expect(r.out).toMatch(/Usage: netlens/);
    }
    expect(commands.length).toBeGreaterThanOrEqual(9);
  }, 300_000);
});
