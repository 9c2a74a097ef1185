/**
 * Child process for wasm-tiering.test.ts: sets up Netlens one way (argv[2]), then runs a
 * hot WebAssembly function long enough for V8 to tier it up and prints which tier it is
 * on as JSON. Natives syntax (%IsLiftoffFunction) is V8's own way to ask, test-only.
 *   none     nothing: the control, the function must reach TurboFan
 *   function keepWasmOnBaselineTier()
 *   cli      the CLI's main(['--version'])
 *   argv     nothing here: the flag is expected on this process's command line (as the lab child gets it)
 */
import v8 from 'node:v8';
import '../setup-app-paths.js';
import { keepWasmOnBaselineTier } from '../../src/upstream/wasm-tiering.js';
import { main } from '../../src/cli/main.js';

const mode = process.argv[2];
if (mode === 'function') keepWasmOnBaselineTier();
if (mode === 'cli') await main(['--version'], { stdout: { write: () => true }, stderr: process.stderr } as never);
v8.setFlagsFromString('--allow-natives-syntax');
// (func (export "f") (param i32) (result i32) (local i32) loop: local1 += 1 while local1 < param; return local1)
const bytes = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 23, 1, 21, 1, 1, 127, 3, 64, 32, 1, 65,
  1, 106, 34, 1, 32, 0, 73, 13, 0, 11, 32, 1, 11,
]);
const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f as (n: number) => number;
// new Function: natives syntax parses only in code compiled after the flag is set.
const tiers = new Function('f', 'return { liftoff: %IsLiftoffFunction(f), turbofan: %IsTurboFanFunction(f) };') as (fn: unknown) => {
  liftoff: boolean;
  turbofan: boolean;
};
// Hot enough to spend V8's tiering budget many times over; then a moment for the background compile.
const until = Date.now() + 2000;
while (Date.now() < until && !tiers(f).turbofan) {
  for (let i = 0; i < 20; i++) f(100_000);
  await new Promise((r) => setTimeout(r, 10));
}
console.log(JSON.stringify({ ...tiers(f), result: f(10) }));
