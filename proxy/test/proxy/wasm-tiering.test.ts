/**
 * undici's parser stays on V8's baseline WebAssembly tier wherever Netlens owns the
 * process (upstream/wasm-tiering.ts): the tier is asked of V8 itself in a child process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { labProxyChildArgv } from './lab-child-argv.js';
import { WASM_BASELINE_ONLY_FLAG } from '../../src/upstream/wasm-tiering.js';

const PROBE = path.join(import.meta.dirname, 'wasm-tier-probe.ts');

function probe(mode: string, nodeFlags: string[] = []): Promise<{ liftoff: boolean; turbofan: boolean; result: number }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...nodeFlags, '--import', 'tsx', PROBE, mode], { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!)),
    ),
  );
}

describe('WebAssembly baseline tier', () => {
  it('a hot WebAssembly function reaches TurboFan by default (the probe can tell the tiers apart)', async () => {
    expect(await probe('none')).toEqual({ liftoff: false, turbofan: true, result: 10 });
  });

  it('keepWasmOnBaselineTier() at run time keeps it on Liftoff (no re-exec needed)', async () => {
    expect(await probe('function')).toEqual({ liftoff: true, turbofan: false, result: 10 });
  });

  it('the CLI sets it before running any command', async () => {
    expect(await probe('cli')).toEqual({ liftoff: true, turbofan: false, result: 10 });
  });

  it('the flag on the command line, as the lab child gets it, has the same effect', async () => {
    expect(await probe('argv', [WASM_BASELINE_ONLY_FLAG])).toEqual({ liftoff: true, turbofan: false, result: 10 });
  });

  it("the lab's proxy child is started with the flag", async () => {
    expect(await labProxyChildArgv()).toContain(WASM_BASELINE_ONLY_FLAG);
  });
});
