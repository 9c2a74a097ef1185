/**
 * Fixes how far V8 lets the old generation grow between full collections: to three times what survived the last one.
 *
 * Why: V8 picks that factor itself after each full collection, from how fast the program allocated into the old
 * generation lately against how fast it marks. In a Netlens that has served many small requests the next full
 * collection then came soon after the last (why V8 chose so there and not in the node:http2 floor, which promoted more
 * in the same traffic, is not pinned; the factor is what changed it). When a large body then goes through (each DATA
 * chunk of it, ~8 KiB, a new ArrayBuffer in node:http2, and short-lived objects around it), V8 started its next
 * marking right after each full collection: ~12 mark-compacts per 256 MiB upload, each 15-30 ms of marking, where a
 * fresh process or the node:http2 floor ran one, and ~35% more proxy CPU per upload (docs/benchmarks.md, "in a process
 * that has served traffic first"; `npx tsx bench/large-profile.ts --only up-https --floor --age 60`). With the factor
 * fixed at 3 the same upload ran 2-5 and cost what the floor's did. V8's own factor ranges from 1.1 to 4. The cost is
 * memory given back later (~20 MiB more resident after such transfers); an idle proxy's memory and small requests' CPU
 * measured the same with and without it.
 *
 * Node 20's V8 takes the flag at run time, read at each full collection, so the entry points set it at start (as
 * wasm-tiering.ts's flag); the lab's proxy child gets it on its command line. A library user's process is left alone:
 * the flag is process-wide and only entry points Netlens owns set it.
 */
import v8 from 'node:v8';

/** Percent the old generation may grow past what survived a full collection: 200, a factor of 3. */
export const HEAP_GROWING_FLAG = '--heap-growing-percent=200';

/** Sets HEAP_GROWING_FLAG for this process. */
export function steadyHeapGrowth(): void {
  v8.setFlagsFromString(HEAP_GROWING_FLAG);
}
