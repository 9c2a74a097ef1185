/** The lab matrix (lab/cells.ts) as the Lab view lists it. */
import type { LabCellInfo } from './contract.js';
import { ALL_CELLS, cellSettings } from '../lab/cells.js';

/** Every lab cell with a label for the UI ("proxy · h2 · intercept") and its settings. */
export function labCells(): LabCellInfo[] {
  return ALL_CELLS.map((id) => ({ id, label: id.split('+').join(' · '), settings: cellSettings(id) }));
}
