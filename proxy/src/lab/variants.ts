/**
 * Lab variants ("what if"): a rules file applied to the Netlens proxy cells. Each variant
 * adds `<cell>~<name>` next to every proxy cell run, in the same shuffled rounds, and the
 * analysis compares it with the same cell without the rules (docs/lab.md "Variants: what if").
 *
 * The rules are read and validated once, before any run; the proxy child receives the
 * validated object (never the file), so every run of a variant applies the same rules.
 */
import path from 'node:path';
import { NetlensError, ErrorCodes } from '../errors.js';
import { readRulesFile } from '../rules/load-file.js';
import { validateRules } from '../rules/validate.js';
import { VIA_NAME } from './cells.js';
import type { BuiltInCellId, CellId, LabVariant, VariantCellId } from './types.js';

/** A valid variant name (the part after `~` in its cells); the same shape as a via name. */
export const VARIANT_NAME = VIA_NAME;

/** `NAME=FILE` → its parts; throws a message fit for a usage error. */
export function parseVariantFlag(raw: string): { name: string; file: string } {
  const eq = raw.indexOf('=');
  if (eq < 0) throw new Error(`"${raw}" is not NAME=FILE (e.g. slow-images=rules/slow.json)`);
  const name = raw.slice(0, eq).trim();
  const file = raw.slice(eq + 1).trim();
  if (!VARIANT_NAME.test(name)) {
    throw new Error(`variant name "${name}" must be 1-32 lowercase letters, digits or dashes, starting with a letter or digit`);
  }
  if (!file) throw new Error(`variant "${name}" names no rules file (NAME=FILE)`);
  return { name, file };
}

/**
 * Reads and validates a variant's rules file. Errors keep their code (NL_RULES_FILE,
 * NL_RULES_INVALID) and say which variant they belong to.
 */
export function loadVariant(name: string, file: string): LabVariant {
  try {
    return { name, file, rules: readRulesFile(file) };
  } catch (err) {
    const e = err as NetlensError;
    const code = e.code ?? ErrorCodes.RULES_FILE;
    throw new NetlensError(code, `variant "${name}": ${e.message}`, { cause: err });
  }
}

/** Checks variants handed over by an API caller (names, duplicates, rules) and returns them validated. */
export function validateVariants(variants: readonly LabVariant[]): LabVariant[] {
  const seen = new Set<string>();
  return variants.map((v) => {
    if (typeof v?.name !== 'string' || !VARIANT_NAME.test(v.name)) {
      throw new NetlensError(ErrorCodes.USAGE, `variant name "${String(v?.name)}" must be 1-32 lowercase letters, digits or dashes`);
    }
    if (seen.has(v.name)) throw new NetlensError(ErrorCodes.USAGE, `variant name "${v.name}" is given twice`);
    seen.add(v.name);
    const file = typeof v.file === 'string' ? v.file : '';
    let rules;
    try {
      rules = validateRules(v.rules, file || `variant ${v.name}`);
    } catch (err) {
      const e = err as NetlensError;
      throw new NetlensError(e.code ?? ErrorCodes.RULES_INVALID, `variant "${v.name}": ${e.message}`, { cause: err });
    }
    // The lab's proxies run unattended: a paused request would wait out its timeout and be measured as a slow load.
    const paused = rules.rules.find((r) => r.enabled !== false && r.actions.some((a) => a.type === 'breakpoint'));
    if (paused) {
      throw new NetlensError(
        ErrorCodes.RULES_INVALID,
        `variant "${v.name}": rule "${paused.name ?? paused.id}" has a breakpoint, and nobody can continue a paused request ` +
          'in the lab (it would wait out its timeout and be measured as a slow load); remove the breakpoint or switch the rule off',
      );
    }
    return { name: v.name, file, rules };
  });
}

const VARIANT_CELL = /^(.+)~([a-z0-9][a-z0-9-]{0,31})$/;

export function variantCellId(base: BuiltInCellId, name: string): VariantCellId {
  return `${base}~${name}`;
}

/** `<cell>~<name>` → its base cell and variant name; undefined for any other cell. */
export function parseVariantCell(id: string): { base: BuiltInCellId; name: string } | undefined {
  const m = VARIANT_CELL.exec(id);
  return m ? { base: m[1] as BuiltInCellId, name: m[2] } : undefined;
}

/** Does the variant apply to this cell? Only cells that run through the Netlens proxy. */
export function takesVariants(id: CellId): id is BuiltInCellId {
  return id.startsWith('proxy+') && !id.includes('~');
}

/**
 * The cells with the variants added: each proxy cell followed by its variant cells
 * (in the order the variants were given), so tables show them side by side.
 */
export function withVariantCells(cells: readonly CellId[], variants: readonly Pick<LabVariant, 'name'>[]): CellId[] {
  return cells.flatMap((c) => (takesVariants(c) ? [c, ...variants.map((v) => variantCellId(c, v.name))] : [c]));
}

/** The directory mock `bodyFile`s of a variant resolve against: its rules file's. */
export function variantBaseDir(v: LabVariant): string | undefined {
  return v.file ? path.dirname(path.resolve(v.file)) : undefined;
}

/**
 * A variant cell as a user names it (`--baseline-cell`, a budget key): `<cell>~<name>` where `<cell>` is one of
 * `cells` that takes variants and `<name>` one of the variants given. Returns undefined for a name without `~`
 * (not meant as a variant cell); throws a message listing the valid variant cells otherwise.
 */
export function checkVariantCellName(raw: string, cells: readonly CellId[], names: readonly string[]): VariantCellId | undefined {
  if (!raw.includes('~')) return undefined;
  const valid = withVariantCells(
    cells,
    names.map((name) => ({ name })),
  ).filter((c) => c.includes('~')) as VariantCellId[];
  if ((valid as string[]).includes(raw)) return raw as VariantCellId;
  if (names.length === 0) throw new Error(`"${raw}" names a variant cell, but no variant is given (--variant NAME=FILE)`);
  const parsed = parseVariantCell(raw);
  const why = parsed && !names.includes(parsed.name) ? ` (no variant is named "${parsed.name}"; given: ${names.join(', ')})` : '';
  throw new Error(`unknown variant cell "${raw}"${why}. Valid variant cells: ${valid.join(', ') || 'none (no proxy cell is run)'}`);
}
