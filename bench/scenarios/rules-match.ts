/**
 * What 100 enabled rules cost per request (issue 18: ≤ 10 µs of proxy CPU), from
 * bench/rules-match.ts run as a child: matchers compiled once, every rule tried.
 */
import { scriptResultOrLog } from '../lib/child.js';

export interface RulesMatchCost {
  rules: number;
  medianUs: number;
  minUs: number;
  maxUs: number;
  load: number;
}

/** Runs the micro-benchmark (bounded in time); undefined with the reason logged if it fails. */
export function rulesMatchCost(log: (s: string) => void): Promise<RulesMatchCost | undefined> {
  // Exit 1 only says the target was missed; the RESULT line carries the figure either way.
  return scriptResultOrLog<RulesMatchCost>('rules-match.ts', ['--json'], 'rules match cost', 120_000, log);
}
