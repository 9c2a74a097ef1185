/** Writes a LabResult (and a browser HAR for every run that names one) as a lab run directory. */
import fs from 'node:fs';
import path from 'node:path';
import type { LabResult } from '../../src/lab/types.js';
import { fakeHar } from './fake-result.js';

/** Writes `result` (and HARs for every run that names one) into `dir` as a lab run directory. */
export function writeRun(dir: string, result: LabResult, hars = true): string {
  fs.mkdirSync(path.join(dir, 'har'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(result, null, 2));
  if (hars)
    for (const c of result.cells)
      for (const r of c.runs) if (r.browserHar) fs.writeFileSync(path.join(dir, r.browserHar), JSON.stringify(fakeHar(4)));
  return dir;
}
