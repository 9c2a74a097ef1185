/**
 * The capture proxy's rules as the app edits them: one RulesHolder for the core's
 * lifetime, handed to every proxy start (so a restart keeps the rules), replaced as a
 * whole by setRules/importRules and kept in `<dataDir>/rules.json` so they survive
 * the app closing. Hit counts are summed per rule id across replacements: toggling or
 * moving a rule does not zero what it counted.
 * Commands: getRules, setRules, importRules, exportRules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError, toErrorInfo, type ErrorInfo } from '../../errors.js';
import { RulesHolder } from '../../rules/engine.js';
import { readRulesFile } from '../../rules/load-file.js';
import { validateRules } from '../../rules/validate.js';
import { harMockProblems } from '../../rules/har-mock.js';
import type { RulesFile } from '../../rules/types.js';
import type { CommandArgs, NetlensApi, RulesState } from '../contract.js';
import { bad, obj, str } from './args.js';

export type RulesCommands = Pick<NetlensApi, 'getRules' | 'setRules' | 'importRules' | 'exportRules'>;

export const RULES_FILE_NAME = 'rules.json';
/** Same bound as a rules file on disk (load-file.ts): rules are configuration, not data. */
const MAX_TEXT = 8 * 1024 * 1024;

/** setRules: `{ rules }`, an array checked by the rules validator (its errors name the rule and field). */
export function setRulesArgs(args: unknown): RulesFile {
  const a = obj(args, 'setRules');
  if (!Array.isArray(a.rules)) throw bad('setRules: "rules" must be an array of rules (docs/rules.md)');
  return validateRules({ version: 1, rules: a.rules }, 'setRules');
}

/** importRules: `{ fileName, text }`, the text of a rules file. */
export function importRulesArgs(args: unknown): RulesFile {
  const a = obj(args, 'importRules');
  const fileName = str(a, 'fileName', 'importRules', 500);
  const text = str(a, 'text', 'importRules', MAX_TEXT);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new NetlensError(ErrorCodes.RULES_FILE, `${fileName} is not JSON: ${(err as Error).message}. Pick a rules file (docs/rules.md).`);
  }
  const file = validateRules(parsed, fileName);
  return { version: 1, rules: file.rules };
}

export class RulesController {
  /** What the proxy reads; the same object across proxy restarts. */
  readonly holder: RulesHolder;
  /** Counts of the sets replaced so far, per id still in force. */
  private base = new Map<string, number>();
  private loadError: ErrorInfo | undefined;
  private readonly file: string;

  /**
   * `given`: rules the host already loaded (`netlens serve --rules FILE`, which also reloads the
   * file when it changes): they are in force instead of the ones kept in the data directory, and
   * the app's edits replace them (and are kept there) until the file changes again.
   */
  constructor(
    private readonly dataDir: string,
    given?: RulesHolder,
  ) {
    this.file = path.join(dataDir, RULES_FILE_NAME);
    this.holder = given ?? new RulesHolder();
    if (given || !fs.existsSync(this.file)) return;
    try {
      this.holder.set(readRulesFile(this.file), dataDir);
    } catch (err) {
      // A damaged file must not stop the app: it starts without rules and says why (getRules.loadError).
      this.loadError = toErrorInfo(err);
    }
  }

  state(): RulesState {
    const rules = this.holder.file?.rules ?? [];
    const counts = this.counts();
    const hits = Object.fromEntries(rules.map((r) => [r.id, counts.get(r.id) ?? 0]));
    return {
      rules,
      hits,
      ...(fs.existsSync(this.file) ? { file: this.file } : {}),
      ...(this.loadError ? { loadError: this.loadError } : {}),
    };
  }

  private counts(): Map<string, number> {
    const out = new Map(this.base);
    for (const [id, n] of this.holder.current?.hitCounts ?? []) out.set(id, (out.get(id) ?? 0) + n);
    return out;
  }

  /** Checks what validation cannot (bodyFile exists), saves, then swaps the rules the proxy reads. */
  private apply(file: RulesFile): RulesState {
    for (const [i, r] of file.rules.entries()) {
      for (const [j, a] of r.actions.entries()) {
        if (a.type !== 'mock' || a.bodyFile === undefined) continue;
        const body = path.resolve(this.dataDir, a.bodyFile);
        if (!fs.existsSync(body)) {
          throw new NetlensError(ErrorCodes.RULES_INVALID, `rules[${i}] (id "${r.id}"): actions[${j}].bodyFile ${body} does not exist`);
        }
      }
    }
    const har = harMockProblems(file, (f) => path.resolve(this.dataDir, f));
    if (har.length) throw new NetlensError(ErrorCodes.RULES_INVALID, har.join('\n'));
    this.save(file);
    const counts = this.counts();
    this.base = new Map(file.rules.map((r) => [r.id, counts.get(r.id) ?? 0]));
    this.holder.set(file, this.dataDir);
    this.loadError = undefined;
    return this.state();
  }

  private save(file: RulesFile): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(this.dataDir, { recursive: true });
      fs.writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`);
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      const why = (err as Error).message;
      throw new NetlensError(ErrorCodes.RULES_FILE, `Cannot save the rules to ${this.file}: ${why}. Check the data directory.`, {
        cause: err,
      });
    }
  }

  readonly commands: RulesCommands = {
    getRules: async () => this.state(),
    setRules: async (args: CommandArgs<'setRules'>) => this.apply(setRulesArgs(args)),
    importRules: async (args: CommandArgs<'importRules'>) => this.apply(importRulesArgs(args)),
    exportRules: async () => {
      const rules = this.holder.file?.rules ?? [];
      return { fileName: 'netlens-rules.json', text: `${JSON.stringify({ version: 1, rules }, null, 2)}\n` };
    },
  };
}
