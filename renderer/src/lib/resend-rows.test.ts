import { describe, expect, it } from 'vitest';
import type { ResendRowInfo } from '../../../proxy/src/api/contract';
import { bodyVerdict, filterResendRows } from './resend-rows';

const row = (index: number, changes: ResendRowInfo['changes']): ResendRowInfo => ({
  index,
  method: 'GET',
  url: `http://127.0.0.1/${index}`,
  before: { status: 200, size: 1, time: 1 },
  ...(changes.includes('failed')
    ? { error: { code: 'NL_UPSTREAM_REFUSED', message: 'refused' } }
    : { after: { status: 200, size: 1, time: 1 } }),
  changes,
  slower: false,
});

describe('resend rows', () => {
  const rows = [row(0, []), row(1, ['body']), row(2, ['status', 'size']), row(3, ['failed'])];
  it('filters changed (not failed) and failed rows; all keeps every row', () => {
    expect(filterResendRows(rows, 'all').map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(filterResendRows(rows, 'changed').map((r) => r.index)).toEqual([1, 2]);
    expect(filterResendRows(rows, 'failed').map((r) => r.index)).toEqual([3]);
    expect(filterResendRows([], 'changed')).toEqual([]);
  });
  it('reads the body column', () => {
    expect(rows.map(bodyVerdict)).toEqual(['same', 'changed', 'size differs', 'failed']);
  });
});
