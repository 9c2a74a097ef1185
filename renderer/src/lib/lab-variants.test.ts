import { describe, expect, it } from 'vitest';
import { withVariantCells } from '../../../proxy/src/lab/variants';
import type { CellId } from '../../../proxy/src/api/contract';
import { cellsWithVariants, nextVariantName, variantInputs, variantProblems, type VariantDraft } from './lab-variants';

const d = (key: number, name: string, over: Partial<VariantDraft> = {}): VariantDraft => ({ key, name, source: 'current', ...over });

describe('the Lab form variant picker', () => {
  it('names each problem: empty, bad shape, duplicate, no file imported', () => {
    const p = variantProblems([d(1, ''), d(2, 'Slow'), d(3, 'a'), d(4, 'a'), d(5, 'f', { source: 'file' }), d(6, 'ok')]);
    expect(p.get(1)).toBe('give the variant a name');
    expect(p.get(2)).toMatch(/1-32 lowercase letters/);
    expect(p.get(3)).toBe('the name "a" is used twice');
    expect(p.get(4)).toBe('the name "a" is used twice');
    expect(p.get(5)).toBe('import a rules file');
    expect(p.has(6)).toBe(false);
  });

  it('lists the run cells as the runner does', () => {
    const cells: CellId[] = ['direct+h2', 'proxy+h2+intercept', 'proxy+h1+tunnel'];
    const names = ['a', 'b'];
    expect(cellsWithVariants(cells, names)).toEqual(
      withVariantCells(
        cells,
        names.map((name) => ({ name })),
      ),
    );
  });

  it('suggests a free name and builds the startLab argument', () => {
    expect(nextVariantName([d(1, 'variant-2')])).toBe('variant-3');
    expect(variantInputs([d(1, 'mine'), d(2, 'imp', { source: 'file', fileName: 'x.json', text: '{}' })])).toEqual([
      { name: 'mine', source: 'current' },
      { name: 'imp', source: 'file', fileName: 'x.json', text: '{}' },
    ]);
  });
});
