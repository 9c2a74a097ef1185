/**
 * The Lab form's variant picker (issue 18): drafts as the user edits them, what is wrong with each (the
 * names `netlens lab --variant` accepts), the cells the run will have, and the startLab `variants` argument.
 * The rules themselves are checked by the core when the run starts (its errors name the rule and field).
 */
import type { CellId, LabVariantInput } from '../../../proxy/src/api/contract';
import { VIA_NAME } from '../../../proxy/src/lab/cells';

/** lab/variants.ts VARIANT_NAME (the same shape as a via name; that module reads files, so it is not imported here). */
const VARIANT_NAME = VIA_NAME;

export interface VariantDraft {
  /** Stable React key: names change as the user types. */
  key: number;
  name: string;
  /** `current`: the app's rules when the run starts; `file`: a rules file imported in the form. */
  source: 'current' | 'file';
  fileName?: string;
  text?: string;
}

/** What is wrong with each draft (by key), in the words the form shows beside it. */
export function variantProblems(drafts: readonly VariantDraft[]): Map<number, string> {
  const out = new Map<number, string>();
  const count = new Map<string, number>();
  for (const d of drafts) count.set(d.name, (count.get(d.name) ?? 0) + 1);
  for (const d of drafts) {
    if (!d.name.trim()) out.set(d.key, 'give the variant a name');
    else if (!VARIANT_NAME.test(d.name))
      out.set(d.key, 'a name is 1-32 lowercase letters, digits or dashes, starting with a letter or digit');
    else if ((count.get(d.name) ?? 0) > 1) out.set(d.key, `the name "${d.name}" is used twice`);
    else if (d.source === 'file' && d.text === undefined) out.set(d.key, 'import a rules file');
  }
  return out;
}

/** The next free name `variant-N`. */
export function nextVariantName(drafts: readonly VariantDraft[]): string {
  const used = new Set(drafts.map((d) => d.name));
  let n = drafts.length + 1;
  while (used.has(`variant-${n}`)) n++;
  return `variant-${n}`;
}

/** Cells that take variants: the Netlens proxy cells (lab/variants.ts takesVariants). */
export function takesVariants(cell: CellId): boolean {
  return cell.startsWith('proxy+') && !cell.includes('~');
}

/** The cells the run will have: each proxy cell followed by its `<cell>~<name>` cells (lab/variants.ts withVariantCells). */
export function cellsWithVariants(cells: readonly CellId[], names: readonly string[]): CellId[] {
  return cells.flatMap((c) => (takesVariants(c) ? [c, ...names.map((n) => `${c}~${n}` as CellId)] : [c]));
}

/** startLab's `variants`. */
export function variantInputs(drafts: readonly VariantDraft[]): LabVariantInput[] {
  return drafts.map((d) =>
    d.source === 'current'
      ? { name: d.name, source: 'current' }
      : { name: d.name, source: 'file', fileName: d.fileName ?? 'rules.json', text: d.text ?? '' },
  );
}
