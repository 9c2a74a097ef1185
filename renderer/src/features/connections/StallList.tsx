/** Stalls with their messages: where (connection, exchange), how long, and why in words. */
import type { ExchangeSummary, StallInfo } from '../../../../proxy/src/api/contract';
import { displayName, formatBytes, formatMs } from '../../lib/format';

interface Props {
  stalls: StallInfo[];
  rowsById: ReadonlyMap<string, ExchangeSummary>;
  /** Epoch ms of the axis' zero and of the timeline's t = 0, to say when each stall began. */
  origin: number;
  timeOrigin: number;
  selected?: StallInfo;
  onSelect?(s: StallInfo): void;
  onSelectRow?(rowId: string): void;
}

export function StallList({ stalls, rowsById, origin, timeOrigin, selected, onSelect, onSelectRow }: Props) {
  return (
    <ul className="cx-stalls" data-testid="stall-list">
      {stalls.map((s) => {
        const row = s.exchangeId ? rowsById.get(s.exchangeId) : undefined;
        const isSel = selected && selected.at === s.at && selected.connectionId === s.connectionId;
        return (
          <li key={`${s.connectionId}:${s.at}`} className={isSel ? 'selected' : ''} onClick={() => onSelect?.(s)} data-testid="stall-item">
            <div>
              <b className="err">{formatMs(s.ms)} stall</b> on {s.connectionId} at {formatMs(timeOrigin + s.at - origin)} ·{' '}
              {formatBytes(s.bytes)} held
              {s.exchangeId && (
                <>
                  {' · '}
                  <button className="link" onClick={(e) => (e.stopPropagation(), onSelectRow?.(s.exchangeId!))} title="Select this request">
                    {row ? `${row.method} ${displayName(row.url)}` : s.exchangeId}
                  </button>
                </>
              )}
            </div>
            <div className="cx-msg">{s.message}</div>
          </li>
        );
      })}
    </ul>
  );
}
