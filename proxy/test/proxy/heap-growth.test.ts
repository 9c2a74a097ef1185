/**
 * The old generation's growth between full collections is fixed wherever Netlens owns the process
 * (server/heap-growth.ts): the factor is read from V8's own behaviour in a child process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { labProxyChildArgv } from './lab-child-argv.js';
import { HEAP_GROWING_FLAG } from '../../src/server/heap-growth.js';

const PROBE = path.join(import.meta.dirname, 'heap-growth-probe.ts');

function probe(mode: string, nodeFlags: string[] = []): Promise<{ ratio: number; mb: number }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...nodeFlags, '--import', 'tsx', PROBE, mode], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!)),
    ),
  );
}

// A factor of 3 reads as 3 plus the young generation's share (~0.3 at this size).
const FIXED = [2.7, 3.9];

describe('heap growth between full collections', () => {
  it('the probe tells factors apart: 1.5 set at run time reads as such', async () => {
    const { ratio } = await probe('control');
    expect(ratio).toBeGreaterThan(1.2);
    expect(ratio).toBeLessThan(2.4);
  });

  it('steadyHeapGrowth() at run time fixes it at 3', async () => {
    const { ratio } = await probe('function');
    expect(ratio).toBeGreaterThan(FIXED[0]!);
    expect(ratio).toBeLessThan(FIXED[1]!);
  });

  it('the CLI sets it before running any command', async () => {
    const { ratio } = await probe('cli');
    expect(ratio).toBeGreaterThan(FIXED[0]!);
    expect(ratio).toBeLessThan(FIXED[1]!);
  });

  it('the flag on the command line, as the lab child gets it, has the same effect', async () => {
    const { ratio } = await probe('argv', [HEAP_GROWING_FLAG]);
    expect(ratio).toBeGreaterThan(FIXED[0]!);
    expect(ratio).toBeLessThan(FIXED[1]!);
  });

  it("the lab's proxy child is started with the flag", async () => {
    expect(await labProxyChildArgv()).toContain(HEAP_GROWING_FLAG);
  });
});
