import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { LooseHarLog } from '../../../proxy/src/har/types';
import { harToRows } from '../../../proxy/src/api/har-row';
import { upsertRows, EMPTY_ROWS } from './rows-store';

const chrome = JSON.parse(fs.readFileSync(new URL('../../../e2e/fixtures/chrome.har', import.meta.url), 'utf8')).log as LooseHarLog;

describe('live rows store', () => {
  it('upserts by id in arrival order and never lets a pending update undo a finished row', () => {
    const base = harToRows(chrome);
    let s = upsertRows(EMPTY_ROWS, [
      { ...base[0]!, id: 'x1', state: 'pending' },
      { ...base[2]!, id: 'x2' },
    ]);
    s = upsertRows(s, [{ ...base[0]!, id: 'x1', state: 'complete', status: 200 }]);
    expect(s.rows.map((r) => [r.id, r.state])).toEqual([
      ['x1', 'complete'],
      ['x2', 'complete'],
    ]);
    const same = upsertRows(s, [{ ...base[0]!, id: 'x1', state: 'pending' }]);
    expect(same.rows[0]!.state).toBe('complete');
    expect(upsertRows(s, [])).toBe(s);
  });
});
