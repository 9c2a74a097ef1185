/**
 * Run order: every round runs each cell once, in a freshly shuffled order, so
 * slow drift on a busy machine (thermal, other processes) spreads over all
 * cells instead of landing on whichever ran last. A seeded PRNG makes an order
 * repeatable; the seed goes into results.json.
 */
import type { CellId } from './types.js';

/** mulberry32: a tiny, well-distributed 32-bit PRNG; good enough to shuffle, not for secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle of a copy. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export interface ScheduledRun {
  cell: CellId;
  round: number;
  sequence: number;
}

/** `runs` rounds; each round is every cell once, shuffled with the seeded PRNG. */
export function schedule(cells: readonly CellId[], runs: number, seed: number): ScheduledRun[] {
  const random = mulberry32(seed);
  const out: ScheduledRun[] = [];
  for (let round = 0; round < runs; round++) {
    for (const cell of shuffle(cells, random)) out.push({ cell, round, sequence: out.length });
  }
  return out;
}
