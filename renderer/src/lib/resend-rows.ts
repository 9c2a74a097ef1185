/** Sessions → Resend: which diff rows a filter shows, and how a row's change reads. */
import type { ResendRowInfo } from '../../../proxy/src/api/contract';

export type ResendFilter = 'all' | 'changed' | 'failed';

/** `changed`: status, size or body differ (failed requests are their own filter, as in the summary). */
export function isChanged(r: ResendRowInfo): boolean {
  return r.changes.length > 0 && !r.changes.includes('failed');
}

export function isFailed(r: ResendRowInfo): boolean {
  return r.changes.includes('failed');
}

export function filterResendRows(rows: ResendRowInfo[], filter: ResendFilter): ResendRowInfo[] {
  if (filter === 'changed') return rows.filter(isChanged);
  if (filter === 'failed') return rows.filter(isFailed);
  return rows;
}

/** The body column: changed, same, or unknown (sizes differ or the recording holds no whole body). */
export function bodyVerdict(r: ResendRowInfo): 'changed' | 'same' | 'failed' | 'size differs' {
  if (isFailed(r)) return 'failed';
  if (r.changes.includes('body')) return 'changed';
  if (r.changes.includes('size')) return 'size differs';
  return 'same';
}
