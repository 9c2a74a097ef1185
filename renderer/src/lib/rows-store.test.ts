import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { LooseHarLog } from '../../../proxy/src/har/types';
import { harToRows } from '../../../proxy/src/api/har-row';
import { mergeListed, upsertRows, EMPTY_ROWS } from './rows-store';

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

  it('on (re)connecting, keeps a row an event finished over the list taken while it was pending', () => {
    const base = harToRows(chrome);
    // Events: x1 finished, x3 new since the list was taken.
    const live = upsertRows(EMPTY_ROWS, [
      { ...base[0]!, id: 'x1', state: 'complete', status: 200 },
      { ...base[1]!, id: 'x3', state: 'pending' },
    ]);
    // The list: x2 and x1, the latter still pending when it was taken.
    const merged = mergeListed(live, [
      { ...base[2]!, id: 'x2' },
      { ...base[0]!, id: 'x1', state: 'pending', status: undefined },
    ]);
    expect(merged.rows.map((r) => [r.id, r.state, r.status])).toEqual([
      ['x2', 'complete', base[2]!.status],
      ['x1', 'complete', 200],
      ['x3', 'pending', base[1]!.status],
    ]);
    // A row the list has finished stays finished whatever the events said before.
    const later = mergeListed(upsertRows(EMPTY_ROWS, [{ ...base[0]!, id: 'x1', state: 'pending' }]), [
      { ...base[0]!, id: 'x1', state: 'complete', status: 201 },
    ]);
    expect(later.rows.map((r) => [r.id, r.state, r.status])).toEqual([['x1', 'complete', 201]]);
  });
});
