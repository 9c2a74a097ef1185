/**
 * A waterfall: one row per request on a shared time axis, phases in DevTools
 * colours. Drag across the axis or the bars to zoom into a time range; hover a
 * bar for its numbers. Virtualized like the Traffic list. Used by the
 * Waterfall view and the Lab's side-by-side comparison.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ExchangeSummary } from '../../../../proxy/src/api/contract';
import { createTimeScale, extentOf, rangeFromPixels, zoomRange, type TimeRange } from '../../lib/time-scale';
import { PHASE_COLORS, PHASE_LABELS, phaseSegments } from '../../lib/phases';
import { displayName, formatMs } from '../../lib/format';
import { statusClassOf } from '../../lib/filters';
import { StallMarker } from './StallMarker';

const ROW_H = 22;

interface Props {
  rows: ExchangeSummary[];
  selectedId?: string;
  onSelect?(id: string): void;
  nameWidth?: number;
  testid?: string;
  /** Controlled zoom (the view's buttons); undefined = whole range. */
  zoom?: TimeRange;
  onZoom?(range: TimeRange | undefined): void;
  /** A fixed axis (side-by-side comparisons share one); default: the rows' extent. */
  bounds?: TimeRange;
  markers?: Marker[];
  /** Stall count and time per row id: stalled rows get a marker with a tooltip. */
  stalls?: Record<string, { count: number; ms: number }>;
}

/** A vertical line across the waterfall, e.g. DOMContentLoaded (blue) and load (red) as in DevTools. */
export interface Marker {
  time: number;
  color: string;
  label: string;
}

interface Hover {
  row: ExchangeSummary;
  x: number;
  y: number;
}

export function rowExtent(rows: readonly ExchangeSummary[]): TimeRange {
  return extentOf(rows.map((r) => ({ start: r.startTime, end: r.startTime + Math.max(0, r.duration) }))) ?? { start: 0, end: 1 };
}

export function WaterfallChart(props: Props) {
  const { rows, selectedId, onSelect, nameWidth = 300, testid = 'waterfall', zoom, onZoom, bounds: fixedBounds } = props;
  const { markers = [], stalls } = props;
  const bounds = useMemo(() => fixedBounds ?? rowExtent(rows), [rows, fixedBounds]);
  const range = zoom ?? bounds;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [trackWidth, setTrackWidth] = useState(600);
  const [drag, setDrag] = useState<{ x0: number; x1: number }>();
  const [hover, setHover] = useState<Hover>();

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const measure = () => setTrackWidth(Math.max(50, el.clientWidth - nameWidth - 8));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [nameWidth]);

  const scale = useMemo(() => createTimeScale(range, trackWidth), [range, trackWidth]);
  // Labels count from the whole range's start, as the range text and the tooltips do (zoomed or not).
  const ticks = useMemo(() => scale.ticks(trackWidth < 500 ? 55 : 90, bounds.start), [scale, trackWidth, bounds.start]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 10,
  });

  // Drag to zoom: positions are relative to the track's left edge.
  const xOf = (e: { clientX: number }) => {
    const rect = scrollRef.current!.getBoundingClientRect();
    return e.clientX - rect.left - nameWidth;
  };
  useEffect(() => {
    if (!drag) return;
    const move = (e: MouseEvent) => setDrag((d) => (d ? { ...d, x1: xOf(e) } : d));
    const up = (e: MouseEvent) => {
      const r = rangeFromPixels(scale, drag.x0, xOf(e));
      setDrag(undefined);
      if (r && onZoom) onZoom(r);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up, { once: true });
    return () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    };
    // Re-subscribes only when a drag starts or ends or the scale changes, not on every mouse move.
  }, [drag !== undefined, scale]);

  const onWheel = (e: React.WheelEvent) => {
    if (!onZoom || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    const anchor = scale.toTime(xOf(e));
    const next = zoomRange(range, anchor, e.deltaY < 0 ? 0.8 : 1.25, bounds);
    onZoom(next.end - next.start >= bounds.end - bounds.start - 1e-6 ? undefined : next);
  };

  const startDrag = (e: React.MouseEvent) => {
    if (e.button !== 0 || !onZoom) return;
    const x = xOf(e);
    if (x < 0) return;
    setDrag({ x0: x, x1: x });
  };

  return (
    <div className="wf" data-testid={testid} onWheel={onWheel}>
      <div className="wf-head">
        <div className="wf-name-col" style={{ width: nameWidth }}>
          Name{' '}
          <span className="muted" style={{ marginLeft: 6 }}>
            {rows.length.toLocaleString()}
          </span>
        </div>
        <div className="wf-axis" style={{ flex: 'none', width: trackWidth }} onMouseDown={startDrag} title="Drag to zoom into a time range">
          {ticks.map((t) => (
            <div key={t.time} className="tick" style={{ left: t.px }}>
              {t.label}
            </div>
          ))}
        </div>
      </div>
      <div
        className="scroller"
        ref={scrollRef}
        onMouseDown={startDrag}
        onMouseLeave={() => setHover(undefined)}
        data-testid={`${testid}-scroller`}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          <div style={{ position: 'absolute', top: 0, bottom: 0, left: nameWidth, width: trackWidth, pointerEvents: 'none' }}>
            {ticks.map((t) => (
              <div
                key={t.time}
                className="gridline"
                style={{ position: 'absolute', top: 0, bottom: 0, width: 1, background: '#303134', left: t.px }}
              />
            ))}
          </div>
          <div
            style={{
              position: 'absolute',
              top: 0,
              bottom: 0,
              left: nameWidth,
              width: trackWidth,
              pointerEvents: 'none',
              zIndex: 2,
              overflow: 'hidden',
            }}
          >
            {markers.map((m) => (
              <div
                key={m.label}
                title={m.label}
                data-testid="waterfall-marker"
                style={{ position: 'absolute', top: 0, bottom: 0, width: 1, background: m.color, left: scale.toPx(m.time) }}
              />
            ))}
          </div>
          {virtualizer.getVirtualItems().map((v) => {
            const r = rows[v.index]!;
            const left = scale.toPx(r.startTime);
            const cls = statusClassOf(r);
            const segs = phaseSegments(r.timings);
            return (
              <div
                key={r.id}
                className={`wf-row ${r.id === selectedId ? 'selected' : ''}`}
                style={{ position: 'absolute', top: v.start, left: 0, right: 0 }}
                onClick={() => onSelect?.(r.id)}
                data-testid={`${testid}-row`}
              >
                <div className={`wf-name-col ${cls === 'error' ? 'err' : ''}`} style={{ width: nameWidth }} title={r.url}>
                  {stalls?.[r.id] && <StallMarker stall={stalls[r.id]!} />}
                  {displayName(r.url)}
                </div>
                <div
                  className="wf-track"
                  style={{ flex: 'none', width: trackWidth }}
                  onMouseMove={(e) => setHover({ row: r, x: e.clientX, y: e.clientY })}
                >
                  {r.state === 'pending' ? (
                    <div className="pending-bar" style={{ left, width: Math.max(8, trackWidth - left) }} />
                  ) : segs.length === 0 ? (
                    <div
                      className={cls === 'error' ? 'err-bar' : 'bar'}
                      style={{ left, width: Math.max(2, scale.spanPx(r.duration)), background: cls === 'error' ? undefined : '#5f6368' }}
                    />
                  ) : (
                    segs.map((s) => (
                      <div
                        key={s.phase}
                        className="bar"
                        style={{
                          left: left + scale.spanPx(s.start),
                          width: Math.max(1, scale.spanPx(s.end - s.start)),
                          background: PHASE_COLORS[s.phase],
                        }}
                      />
                    ))
                  )}
                  {r.duration >= 0 && (
                    // Near the right edge the label goes left of the bar so it stays readable.
                    <div
                      className="label"
                      style={
                        left + scale.spanPx(r.duration) + 70 > trackWidth
                          ? { left: Math.max(0, left - 2), transform: 'translateX(-100%)', paddingRight: 4 }
                          : { left: left + Math.max(2, scale.spanPx(r.duration)) + 2 }
                      }
                    >
                      {formatMs(r.duration)}
                    </div>
                  )}
                </div>
              </div>
            );
          })}
          {drag && Math.abs(drag.x1 - drag.x0) > 2 && (
            <div className="wf-brush" style={{ left: nameWidth + Math.min(drag.x0, drag.x1), width: Math.abs(drag.x1 - drag.x0) }} />
          )}
        </div>
      </div>
      {hover && !drag && <Tooltip hover={hover} origin={bounds.start} />}
    </div>
  );
}

function Tooltip({ hover, origin }: { hover: Hover; origin: number }) {
  const r = hover.row;
  const segs = phaseSegments(r.timings);
  const left = Math.max(4, Math.min(hover.x + 14, window.innerWidth - 450));
  const top = Math.min(hover.y + 14, window.innerHeight - 60 - segs.length * 18);
  return (
    <div className="wf-tooltip" style={{ left, top }} data-testid="waterfall-tooltip">
      <div className="t-url">
        {r.method} {r.url}
      </div>
      <table>
        <tbody>
          <tr>
            <td className="muted">Started at</td>
            <td className="v">{formatMs(r.startTime - origin)}</td>
          </tr>
          {segs.map((s) => (
            <tr key={s.phase}>
              <td>
                <span className="swatch" style={{ background: PHASE_COLORS[s.phase] }} />
                {PHASE_LABELS[s.phase]}
              </td>
              <td className="v">{formatMs(s.end - s.start)}</td>
            </tr>
          ))}
          <tr>
            <td>
              <b>Total</b>
            </td>
            <td className="v">
              <b>{formatMs(r.duration)}</b>
            </td>
          </tr>
        </tbody>
      </table>
      {r.error && (
        <div className="err" style={{ marginTop: 4 }}>
          {r.error.message}
        </div>
      )}
    </div>
  );
}
