/** Runs `netlens` in-process (main() with captured stdout/stderr): fast CLI tests without spawning. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';

export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(args, { stdout: stdout as unknown as typeof process.stdout, stderr: stderr as unknown as typeof process.stderr });
  return { code, out, err };
}
