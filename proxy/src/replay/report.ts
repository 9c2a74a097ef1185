/**
 * Replay reports for terminals (and the UI's message line): the server replay
 * counts and the resend comparison table, differences marked.
 */
import type { ResendResult, ResendRow } from './client-replay.js';
import type { ServerReplayReport } from './server-replay.js';

export function formatServeReport(r: ServerReplayReport): string {
  const lines = [
    `Replay: ${r.served} request${r.served === 1 ? '' : 's'} answered from the recording${r.reused ? ` (${r.reused} by reusing the last recording)` : ''}; ` +
      `unmatched: ${r.unmatched.forward} forwarded, ${r.unmatched['404']} answered 404, ${r.unmatched.kill} killed; ` +
      `${r.unused} of ${r.recorded} recorded responses never served.`,
  ];
  for (const u of r.unmatchedRequests.slice(0, 20)) lines.push(`  unmatched (${u.action}): ${u.method} ${u.url}`);
  if (r.unmatchedRequests.length > 20) lines.push(`  … and ${r.unmatchedRequests.length - 20} more`);
  return lines.join('\n');
}

export interface ResendSummary {
  total: number;
  changed: number;
  failed: number;
  slower: number;
}

export function summarizeResend(result: ResendResult): ResendSummary {
  return {
    total: result.rows.length,
    changed: result.rows.filter((r) => r.changes.length > 0 && !r.changes.includes('failed')).length,
    failed: result.rows.filter((r) => r.changes.includes('failed')).length,
    slower: result.rows.filter((r) => r.slower).length,
  };
}

const ms = (n: number) => `${Math.round(n)} ms`;

/** One line per request: `!` marks a changed request, `x` a failed one, `~` only slower. */
export function formatResendRow(r: ResendRow): string {
  const mark = r.changes.includes('failed') ? 'x' : r.changes.length ? '!' : r.slower ? '~' : ' ';
  const what = `${r.method} ${r.url}`;
  if (!r.after) return `${mark} ${what}  ${r.before.status} → failed: ${r.error?.message ?? 'no response'}`;
  const status = r.before.status === r.after.status ? `${r.after.status}` : `${r.before.status} → ${r.after.status}`;
  const size = r.before.size === r.after.size ? `${r.after.size} B` : `${r.before.size} → ${r.after.size} B`;
  const changed = r.changes.length ? `  [${r.changes.join(', ')}]` : '';
  return `${mark} ${what}  ${status}  ${size}  ${ms(r.before.time)} → ${ms(r.after.time)}${r.slower ? ' (slower)' : ''}${changed}`;
}

export function formatResendReport(result: ResendResult): string {
  const s = summarizeResend(result);
  const lines = result.rows.map(formatResendRow);
  lines.push(
    `Resent ${s.total} request${s.total === 1 ? '' : 's'}: ${s.changed} changed, ${s.failed} failed, ${s.total - s.changed - s.failed} unchanged${s.slower ? `, ${s.slower} more than twice as slow` : ''}.`,
  );
  return lines.join('\n');
}
