/**
 * Rules files: read and validate (NL_RULES_FILE when it cannot be read or parsed,
 * NL_RULES_INVALID when it does not validate), and watch one for changes. A bad edit
 * keeps the rules in force and reports the error; the next good save takes over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import { validateRules } from './validate.js';
import { RulesHolder } from './engine.js';
import { harMockProblems } from './har-mock.js';
import type { RulesFile } from './types.js';

/** A rules file is configuration, not data: anything this large is a mistake. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export function readRulesFile(file: string): RulesFile {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw new Error('not a file');
    if (st.size > MAX_FILE_BYTES) throw new Error(`${st.size} bytes; a rules file is at most ${MAX_FILE_BYTES}`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new NetlensError(ErrorCodes.RULES_FILE, `Cannot read the rules file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new NetlensError(
      ErrorCodes.RULES_FILE,
      `The rules file ${file} is not JSON: ${(err as Error).message}. Fix it, or start from the examples in docs/rules.md.`,
    );
  }
  const rules = validateRules(parsed, file);
  const dir = path.dirname(path.resolve(file));
  for (const [i, r] of rules.rules.entries()) {
    for (const [j, a] of r.actions.entries()) {
      if (a.type !== 'mock' || a.bodyFile === undefined) continue;
      const body = path.resolve(dir, a.bodyFile);
      if (!fs.existsSync(body)) {
        throw new NetlensError(
          ErrorCodes.RULES_INVALID,
          `${file} has 1 problem:\n  rules[${i}] (id "${r.id}"): actions[${j}].bodyFile ${body} does not exist`,
        );
      }
    }
  }
  const har = harMockProblems(rules, (f) => path.resolve(dir, f));
  if (har.length) {
    throw new NetlensError(
      ErrorCodes.RULES_INVALID,
      `${file} has ${har.length} problem${har.length === 1 ? '' : 's'}:\n  ${har.join('\n  ')}`,
    );
  }
  return rules;
}

export interface WatchedRules {
  holder: RulesHolder;
  /** Stops watching. */
  close(): void;
}

/**
 * Loads `file` into a holder (throws when the first load fails) and reloads it on change.
 * `onReload` hears each outcome: the new rule count, or the error that kept the old rules.
 */
export function watchRulesFile(file: string, onReload: (result: { rules: number } | { error: Error }) => void, pollMs = 500): WatchedRules {
  const abs = path.resolve(file);
  const holder = new RulesHolder();
  holder.set(readRulesFile(abs), path.dirname(abs));
  let last = fs.statSync(abs).mtimeMs;
  let lastSize = fs.statSync(abs).size;
  // Polling (fs.watchFile) survives editors that save by rename, which fs.watch loses track of.
  const listener = (cur: fs.Stats) => {
    if (cur.mtimeMs === last && cur.size === lastSize) return;
    last = cur.mtimeMs;
    lastSize = cur.size;
    try {
      const next = readRulesFile(abs);
      holder.set(next, path.dirname(abs));
      onReload({ rules: next.rules.length });
    } catch (err) {
      onReload({ error: err as Error });
    }
  };
  fs.watchFile(abs, { interval: pollMs, persistent: false }, listener);
  return { holder, close: () => fs.unwatchFile(abs, listener) };
}
