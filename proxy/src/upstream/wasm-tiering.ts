/**
 * Keeps undici's HTTP/1.1 parser (llhttp, WebAssembly) on V8's baseline compiler.
 *
 * Why: V8 compiles WebAssembly with Liftoff first and recompiles hot functions with
 * TurboFan. For llhttp that second tier costs about 10 MB of resident memory, paid on
 * the first requests and kept for the life of the process, which was most of what an
 * idle Netlens grew by after its first requests (bench "Memory", docs/benchmarks.md).
 * `--liftoff-only` stops the second tier. It costs no measurable throughput: parsing
 * heads is a small part of a request's work in the proxy (20,000 requests through one
 * undici client took the same CPU time with and without it).
 *
 * Node 20's V8 takes the flag at run time, so the entry points set it before the first
 * upstream connection compiles the parser: no re-exec, nothing on the command line
 * (`--no-wasm-tier-up`, the other candidate, does not stop dynamic tier-up in this V8).
 * The lab's proxy child gets it on its command line (child-process.ts). A library user's
 * process is left alone: the flag is process-wide and only entry points Netlens owns set it.
 */
import v8 from 'node:v8';

export const WASM_BASELINE_ONLY_FLAG = '--liftoff-only';

/** Sets WASM_BASELINE_ONLY_FLAG; call before undici's first connection (a parser compiled earlier keeps its tiers). */
export function keepWasmOnBaselineTier(): void {
  v8.setFlagsFromString(WASM_BASELINE_ONLY_FLAG);
}
