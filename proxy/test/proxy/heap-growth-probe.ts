/**
 * Child process for heap-growth.test.ts: sets up Netlens one way (argv[2]), then keeps allocating objects it retains
 * and prints, as JSON, how far V8 let the heap grow past what survived one full collection before it ran the next:
 * `ratio`, the heap in use just before that collection over the heap in use just after the one before (nothing
 * allocated is freed, so that is V8's growing factor, plus its young generation's share). Measured once the heap holds
 * over 60 MB, where the young generation's share is small.
 *   none      nothing: V8's own factor
 *   function  steadyHeapGrowth()
 *   cli       the CLI's main(['--version'])
 *   argv      nothing here: the flag is expected on this process's command line (as the lab child gets it)
 *   control   --heap-growing-percent=50 set here: the probe can tell factors apart
 */
import v8 from 'node:v8';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import '../setup-app-paths.js';
import { steadyHeapGrowth } from '../../src/server/heap-growth.js';
import { main } from '../../src/cli/main.js';

const mode = process.argv[2];
if (mode === 'function') steadyHeapGrowth();
if (mode === 'cli') await main(['--version'], { stdout: { write: () => true }, stderr: process.stderr } as never);
if (mode === 'control') v8.setFlagsFromString('--heap-growing-percent=50');

const used = () => v8.getHeapStatistics().used_heap_size;
let majors = 0;
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e.detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
});
observer.observe({ entryTypes: ['gc'] });
const keep: unknown[] = [];
let before = 0;
let lastAfter = 0;
let seen = 0;
let ratio: number | undefined;
// Bounded: 2,000 steps of ~0.5 MB is ~1 GB, past any factor V8 picks (at most 4) from 60 MB.
for (let i = 0; i < 2000 && ratio === undefined; i++) {
  const chunk: unknown[] = new Array(16384);
  for (let j = 0; j < chunk.length; j++) chunk[j] = { j };
  keep.push(chunk);
  // The observer's entries arrive on a later turn.
  await new Promise((r) => setImmediate(r));
  if (majors > seen) {
    seen = majors;
    if (lastAfter > 60e6) ratio = before / lastAfter;
    lastAfter = used();
  }
  before = used();
}
observer.disconnect();
console.log(JSON.stringify({ ratio, mb: Math.round(used() / 1e6) }));
