/**
 * One connection as a lane: writes as ticks above the middle band, reads below it
 * (height by bytes, log scale), the exchanges on it as bars in DevTools phase colours
 * in the band, and stalls as red ranges over the whole lane. Hovering reports what is
 * under the pointer; clicking a bar selects its exchange, clicking a stall selects it.
 */
import { useMemo } from 'react';
import type { ConnectionLane, ConnectionsView, ExchangeSummary, StallInfo } from '../../../../proxy/src/api/contract';
import { binAt, laneBars, laneCounts, stallLabel, stallRange, tickBins, tickHeight, type TickBin } from '../../lib/connections';
import { PHASE_COLORS } from '../../lib/phases';
import type { TimeScale } from '../../lib/time-scale';

export const LANE_H = 48;
/** What an HTTP/2 lane's ticks are (docs/timings.md, "Socket timeline"). */
export const H2_NOTE =
  'HTTP/2 session: nghttp2 reads and writes this socket itself, so its ticks are the HEADERS and DATA frames of each request, ' +
  'when the proxy handed them to nghttp2 or got them from it (sizes: DATA payloads, uncompressed header lists), ' +
  'not send calls or TLS records. No stall detection here.';
const BAND_TOP = 18;
const BAND_H = 12;
const TICK_MAX = BAND_TOP - 2;
export const WRITE_COLOR = '#e8eaed';
export const READ_COLOR = '#8ab4f8';

/** What the pointer is over, for the chart's tooltip. */
export type LaneHit =
  | { kind: 'bin'; lane: ConnectionLane; bin: TickBin }
  | { kind: 'bar'; lane: ConnectionLane; rowId: string }
  | { kind: 'stall'; lane: ConnectionLane; stall: StallInfo };

interface Props {
  view: ConnectionsView;
  lane: ConnectionLane;
  stalls: StallInfo[];
  rowsById: ReadonlyMap<string, ExchangeSummary>;
  scale: TimeScale;
  nameWidth: number;
  selectedId?: string;
  selectedStall?: StallInfo;
  onSelect?(rowId: string): void;
  onSelectStall?(s: StallInfo): void;
  onHover(hit: LaneHit | undefined, x: number, y: number): void;
}

function tickPath(bins: TickBin[], d: 'w' | 'r'): string {
  const mid0 = BAND_TOP - 1;
  const mid1 = BAND_TOP + BAND_H + 1;
  return bins
    .filter((b) => b.d === d)
    .map((b) => {
      const h = tickHeight(b.bytes, TICK_MAX);
      const x = b.px + 0.5;
      return d === 'w' ? `M${x} ${mid0}V${mid0 - h}` : `M${x} ${mid1}V${mid1 + h}`;
    })
    .join('');
}

export function LaneRow({
  view,
  lane,
  stalls,
  rowsById,
  scale,
  nameWidth,
  selectedId,
  selectedStall,
  onSelect,
  onSelectStall,
  onHover,
}: Props) {
  const width = scale.width;
  const bins = useMemo(() => tickBins(view, lane, scale.toPx, width), [view, lane, scale, width]);
  const bars = useMemo(() => laneBars(view, lane, rowsById), [view, lane, rowsById]);
  const counts = useMemo(() => laneCounts(lane), [lane]);
  const stallMs = stalls.reduce((n, s) => n + s.ms, 0);
  const lifeStart = Math.max(0, scale.toPx(view.timeOrigin + lane.opened));
  const lifeEnd = Math.min(width, lane.closed !== undefined ? scale.toPx(view.timeOrigin + lane.closed) : width);

  const hitAt = (e: React.MouseEvent): LaneHit | undefined => {
    const rect = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const t = scale.toTime(x);
    if (y < BAND_TOP - 1) {
      const bin = binAt(bins, x, 'w');
      if (bin) return { kind: 'bin', lane, bin };
    } else if (y > BAND_TOP + BAND_H + 1) {
      const bin = binAt(bins, x, 'r');
      if (bin) return { kind: 'bin', lane, bin };
    } else {
      const bar = bars.find((b) => t >= b.start && t <= b.start + Math.max(b.total, 2 / scale.pxPerMs));
      if (bar) return { kind: 'bar', lane, rowId: bar.rowId };
    }
    const stall = stalls.find((s) => {
      const r = stallRange(view, s);
      return t >= r.start && t <= r.end;
    });
    return stall ? { kind: 'stall', lane, stall } : undefined;
  };

  return (
    <div
      className={`cx-lane ${lane.leg}`}
      data-testid="connection-lane"
      data-connection={lane.id}
      data-framing={lane.framing}
      style={{ height: LANE_H }}
    >
      <div className="cx-name" style={{ width: nameWidth }} title={`${lane.leg} leg ${lane.id}`}>
        <div>
          <span className={`cx-leg ${lane.leg}`}>{lane.leg === 'client' ? 'client' : '↳ upstream'}</span> <b>{lane.id}</b>
          {lane.framing === 'h2' && (
            <span className="cx-h2-badge" data-testid="lane-h2" title={H2_NOTE}>
              HTTP/2 frames
            </span>
          )}
          {stalls.length > 0 && (
            <span className="cx-stall-badge" data-testid="lane-stalls">
              {stallLabel({ count: stalls.length, ms: stallMs })}
            </span>
          )}
        </div>
        <div className="muted">
          {lane.framing === 'h2' ? `${counts.writes} frames out · ${counts.reads} in` : `${counts.writes} writes · ${counts.reads} reads`}
          {nameWidth >= 200 && ` · ${lane.exchanges.length} ${lane.exchanges.length === 1 ? 'exchange' : 'exchanges'}`}
          {lane.eventsOmitted > 0 && ` · ${lane.eventsOmitted.toLocaleString()} events not shown`}
        </div>
      </div>
      <div
        className="cx-track"
        style={{ width }}
        onMouseMove={(e) => onHover(hitAt(e), e.clientX, e.clientY)}
        onMouseLeave={() => onHover(undefined, 0, 0)}
        onClick={(e) => {
          const hit = hitAt(e);
          if (hit?.kind === 'bar') onSelect?.(hit.rowId);
          if (hit?.kind === 'stall') onSelectStall?.(hit.stall);
        }}
      >
        <div className="cx-life" style={{ left: lifeStart, width: Math.max(0, lifeEnd - lifeStart), top: BAND_TOP + BAND_H / 2 }} />
        {bars.map((b) => {
          const left = scale.toPx(b.start);
          const sel = b.rowId === selectedId ? ' selected' : '';
          if (b.segments.length === 0) {
            return (
              <div
                key={b.rowId}
                className={`cx-bar plain${sel}`}
                data-testid="lane-bar"
                style={{ left, width: Math.max(2, scale.spanPx(b.total)), top: BAND_TOP, height: BAND_H }}
              />
            );
          }
          return (
            <div
              key={b.rowId}
              className={`cx-bar${sel}`}
              data-testid="lane-bar"
              style={{ left, width: Math.max(2, scale.spanPx(b.total)), top: BAND_TOP, height: BAND_H }}
            >
              {b.segments.map((s) => (
                <span
                  key={s.phase}
                  style={{
                    left: scale.spanPx(s.start),
                    width: Math.max(1, scale.spanPx(s.end - s.start)),
                    background: PHASE_COLORS[s.phase],
                  }}
                />
              ))}
            </div>
          );
        })}
        <svg
          className="cx-ticks"
          width={width}
          height={LANE_H}
          data-testid="lane-ticks"
          data-writes={counts.writes}
          data-reads={counts.reads}
        >
          <path d={tickPath(bins, 'w')} stroke={WRITE_COLOR} strokeWidth={1} />
          <path d={tickPath(bins, 'r')} stroke={READ_COLOR} strokeWidth={1} />
        </svg>
        {stalls.map((s) => {
          const r = stallRange(view, s);
          const left = scale.toPx(r.start);
          const sel = selectedStall && selectedStall.at === s.at && selectedStall.connectionId === s.connectionId ? ' selected' : '';
          return (
            <div
              key={s.at}
              className={`cx-stall${sel}`}
              data-testid="lane-stall"
              title={s.message}
              style={{ left, width: Math.max(3, scale.toPx(r.end) - left) }}
            />
          );
        })}
      </div>
    </div>
  );
}
