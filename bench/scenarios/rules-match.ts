/**
 * What 100 enabled rules cost per request (issue 18: ≤ 10 µs of proxy CPU), from
 * bench/rules-match.ts run as a child: matchers compiled once, every rule tried.
 */
import { execFile } from 'node:child_process';
import { ROOT_DIR, tsArgs } from '../lib/child.js';

export interface RulesMatchCost {
  rules: number;
  medianUs: number;
  minUs: number;
  maxUs: number;
  load: number;
}

/** Runs the micro-benchmark (bounded in time); undefined with the reason logged if it fails. */
export function rulesMatchCost(log: (s: string) => void): Promise<RulesMatchCost | undefined> {
  const [cmd, args] = tsArgs('rules-match.ts', ['--json']);
  return new Promise((resolve) => {
    // Exit 1 only says the target was missed; the RESULT line carries the figure either way.
    execFile(cmd, args, { cwd: ROOT_DIR, timeout: 120_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const m = stdout.match(/^RESULT (.*)$/m);
      if (m) return resolve(JSON.parse(m[1]!) as RulesMatchCost);
      log(`rules match cost: failed: ${err?.message ?? ''} ${stderr.trim().split('\n').slice(-3).join(' / ')}`);
      resolve(undefined);
    });
  });
}
