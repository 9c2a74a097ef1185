/**
 * startLab's `variants` (contract.ts LabVariantInput) → the runner's LabVariant[]: the names checked as
 * `netlens lab --variant` checks them (variants.ts), the rules by the rules validator (its errors name the
 * rule and field), each error prefixed with the variant it belongs to.
 *
 * The rules are passed inline (the runner hands the proxy child the validated object, never a file), so
 * nothing is written: results.json keeps them, and `file` only says where they came from.
 */
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import { takesVariants, VARIANT_NAME } from '../lab/variants.js';
import type { CellId, LabVariant } from '../lab/types.js';
import { validateRules } from '../rules/validate.js';
import type { RulesFile } from '../rules/types.js';
import { bad, type Args } from './commands/args.js';
import { RULES_FILE_NAME } from './commands/rules.js';

/** More variants multiply the page loads past any sensible run; the CLI has no form to fill, the UI does. */
export const MAX_UI_VARIANTS = 8;
/** Same bound as a rules file (load-file.ts). */
const MAX_TEXT = 8 * 1024 * 1024;

export interface VariantSources {
  /** The app's rules now (the capture proxy's, as getRules shows them). */
  currentRules: () => RulesFile | undefined;
  /** Where those rules are kept: their mock `bodyFile`s resolve against it. */
  dataDir: string;
}

function fail(name: string, err: unknown, fallback: string): NetlensError {
  const e = err as NetlensError;
  return new NetlensError(e.code ?? fallback, `startLab: variant "${name}": ${e.message}`, { cause: err });
}

/** Imported text → validated rules. A mock's `bodyFile` is refused: the app has the file's text, not the files beside it. */
function importedRules(name: string, a: Args): { file: string; rules: RulesFile } {
  const fileName = a.fileName;
  if (typeof fileName !== 'string' || fileName.length === 0 || fileName.length > 500) {
    throw bad(`startLab: variant "${name}": "fileName" must be the rules file's name (1-500 characters)`);
  }
  if (typeof a.text !== 'string' || a.text.length === 0 || a.text.length > MAX_TEXT) {
    throw bad(`startLab: variant "${name}": "text" must be the rules file's text (at most 8 MiB)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.text);
  } catch (err) {
    const why = `${fileName} is not JSON: ${(err as Error).message}. Pick a rules file (docs/rules.md).`;
    throw new NetlensError(ErrorCodes.RULES_FILE, `startLab: variant "${name}": ${why}`, { cause: err });
  }
  let rules: RulesFile;
  try {
    rules = validateRules(parsed, fileName);
  } catch (err) {
    throw fail(name, err, ErrorCodes.RULES_INVALID);
  }
  for (const [i, r] of rules.rules.entries()) {
    for (const [j, act] of r.actions.entries()) {
      if (act.type === 'mock' && act.bodyFile !== undefined) {
        throw new NetlensError(
          ErrorCodes.RULES_INVALID,
          `startLab: variant "${name}": ${fileName}: rules[${i}] (id "${r.id}"): actions[${j}].bodyFile cannot be read from an imported ` +
            'file; put the body in "body", or use the file with "netlens lab --variant"',
        );
      }
    }
  }
  return { file: fileName, rules: { version: 1, rules: rules.rules } };
}

/**
 * Checks `variants` of startLab against the cells ticked (at least one proxy cell) and resolves their rules.
 * Absent or empty: no variants.
 */
export function labVariantsArg(raw: unknown, cells: readonly CellId[], sources: VariantSources): LabVariant[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw bad('startLab: "variants" must be an array of {name, source}');
  if (raw.length === 0) return [];
  if (raw.length > MAX_UI_VARIANTS) throw bad(`startLab: at most ${MAX_UI_VARIANTS} variants per run (got ${raw.length})`);
  if (!cells.some(takesVariants)) {
    throw bad(
      `startLab: variants apply to the Netlens proxy cells (proxy+…), and none is among the cells (${cells.join(', ')}); ` +
        'tick a proxy cell or remove the variants',
    );
  }
  const seen = new Set<string>();
  return raw.map((v: unknown, i) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`startLab: variants[${i}] must be an object {name, source}`);
    const a = v as Args;
    if (typeof a.name !== 'string' || a.name.trim() === '') throw bad(`startLab: variants[${i}] has no name; give it one`);
    if (!VARIANT_NAME.test(a.name)) {
      throw bad(`startLab: variant name "${a.name}" must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit`);
    }
    if (seen.has(a.name)) throw bad(`startLab: variant name "${a.name}" is given twice`);
    seen.add(a.name);
    if (a.source === 'current') {
      const rules = sources.currentRules();
      // Rules switched off would run the base cell again under another name.
      if (!rules?.rules.some((r) => r.enabled !== false)) {
        throw bad(
          `startLab: variant "${a.name}" uses the current rules, and none is switched on; add or switch on rules in the Rules view, ` +
            'or import a file',
        );
      }
      // Where the app keeps them: a mock's bodyFile resolves against the data directory, as for the capture proxy.
      return { name: a.name, file: path.join(sources.dataDir, RULES_FILE_NAME), rules: { version: 1, rules: rules.rules } };
    }
    if (a.source === 'file') return { name: a.name, ...importedRules(a.name, a) };
    throw bad(`startLab: variant "${a.name}": "source" must be "current" (the app's rules) or "file" (a rules file's text)`);
  });
}
