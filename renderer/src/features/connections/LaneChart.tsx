/**
 * Connections on a shared time axis, one lane each (LaneRow), with the axis on top
 * and one tooltip for whatever the pointer is over: a tick (bytes, Nagle, exchange),
 * an exchange bar (its request and phases) or a stall (its message).
 * Used by the Connections view and, with the exchange's lanes only, the Connection tab.
 */
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ConnectionLane, ConnectionsView, ExchangeSummary, StallInfo } from '../../../../proxy/src/api/contract';
import { createTimeScale, type TimeRange } from '../../lib/time-scale';
import { displayName, formatBytes, formatMs } from '../../lib/format';
import { LaneRow, type LaneHit } from './LaneRow';

interface Props {
  view: ConnectionsView;
  lanes: ConnectionLane[];
  rowsById: ReadonlyMap<string, ExchangeSummary>;
  range: TimeRange;
  /** Where the axis counts from (the whole range's start, zoomed or not). */
  origin: number;
  nameWidth?: number;
  selectedId?: string;
  selectedStall?: StallInfo;
  onSelect?(rowId: string): void;
  onSelectStall?(s: StallInfo): void;
  testid?: string;
}

function HitText({ hit, rowsById, origin }: { hit: LaneHit; rowsById: ReadonlyMap<string, ExchangeSummary>; origin: number }) {
  const name = (id: string) => {
    const r = rowsById.get(id);
    return r ? `${r.method} ${displayName(r.url)}` : id;
  };
  if (hit.kind === 'stall') {
    const s = hit.stall;
    return (
      <>
        <div className="t-url" style={{ color: 'var(--err)' }}>
          Stall on {s.connectionId}: {formatMs(s.ms)} {s.exchangeId ? `· ${name(s.exchangeId)}` : ''}
        </div>
        <div className="cx-msg">{s.message}</div>
      </>
    );
  }
  if (hit.kind === 'bar') {
    const r = rowsById.get(hit.rowId);
    return (
      <>
        <div className="t-url">{name(hit.rowId)}</div>
        <div className="muted">
          {r ? `${r.status ?? '—'} · started at ${formatMs(r.startTime - origin)} · ${formatMs(r.duration)}` : 'not in the rows shown'} ·
          click to select
        </div>
      </>
    );
  }
  const b = hit.bin;
  // HTTP/2 lanes hold frames handed to nghttp2 or received from it, not socket writes and reads.
  const h2 = hit.lane.framing === 'h2';
  const what = h2 ? (b.d === 'w' ? 'frames' : 'frames received') : b.d === 'w' ? 'writes' : 'reads';
  return (
    <>
      <div className="t-url">
        {b.d === 'w' ? (h2 ? 'Handed to nghttp2' : 'Written') : 'Read'} {formatBytes(b.bytes)}
        {b.count > 1 ? ` in ${b.count} ${what}` : ''} on {hit.lane.id}
      </div>
      <div className="muted">
        at {formatMs(b.at - origin)} ·{' '}
        {b.d === 'w'
          ? h2
            ? 'HTTP/2 HEADERS/DATA payload'
            : b.nagle
              ? "Nagle's algorithm on"
              : 'Nagle off (setNoDelay)'
          : hit.lane.leg === 'client'
            ? 'from the client'
            : 'from the origin'}
        {b.rows.length > 0 && ` · ${b.rows.map(name).join(', ')}`}
      </div>
    </>
  );
}

export function LaneChart({
  view,
  lanes,
  rowsById,
  range,
  origin,
  nameWidth = 240,
  selectedId,
  selectedStall,
  onSelect,
  onSelectStall,
  testid = 'connections-chart',
}: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  const [hover, setHover] = useState<{ hit: LaneHit; x: number; y: number }>();
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(50, el.clientWidth - nameWidth - 12));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [nameWidth]);
  const scale = useMemo(() => createTimeScale(range, width), [range, width]);
  const ticks = useMemo(() => scale.ticks(width < 500 ? 55 : 90, origin), [scale, width, origin]);
  const stallsOf = useMemo(() => {
    const m = new Map<string, StallInfo[]>();
    for (const s of view.stalls) m.set(s.connectionId, [...(m.get(s.connectionId) ?? []), s]);
    return m;
  }, [view.stalls]);

  return (
    <div className="cx" ref={ref} data-testid={testid}>
      <div className="wf-head">
        <div className="wf-name-col" style={{ width: nameWidth }}>
          Connection{' '}
          <span className="muted" style={{ marginLeft: 6 }}>
            {lanes.length.toLocaleString()}
          </span>
        </div>
        <div className="wf-axis" style={{ flex: 'none', width }}>
          {ticks.map((t) => (
            <div key={t.time} className="tick" style={{ left: t.px }}>
              {t.label}
            </div>
          ))}
        </div>
      </div>
      <div className="cx-scroller">
        {lanes.map((lane) => (
          <LaneRow
            key={lane.id}
            view={view}
            lane={lane}
            stalls={stallsOf.get(lane.id) ?? []}
            rowsById={rowsById}
            scale={scale}
            nameWidth={nameWidth}
            selectedId={selectedId}
            selectedStall={selectedStall}
            onSelect={onSelect}
            onSelectStall={onSelectStall}
            onHover={(hit, x, y) => setHover(hit ? { hit, x, y } : undefined)}
          />
        ))}
      </div>
      {hover && (
        <div
          className="wf-tooltip cx-tooltip"
          style={{
            left: Math.max(4, Math.min(hover.x + 14, window.innerWidth - 470)),
            top: Math.min(hover.y + 14, window.innerHeight - 120),
          }}
          data-testid="connections-tooltip"
        >
          <HitText hit={hover.hit} rowsById={rowsById} origin={origin} />
        </div>
      )}
    </div>
  );
}
