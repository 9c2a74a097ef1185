/**
 * The request list: virtualized (@tanstack/react-virtual) so 100,000 rows scroll
 * smoothly: only the visible rows (plus a few) are in the DOM.
 */
import { memo, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ExchangeSummary } from '../../../../proxy/src/api/contract';
import { sortRows, statusClassOf, type SortKey } from '../../lib/filters';
import { resourceTypeOf } from '../../lib/resource-type';
import { displayName, formatBytes, formatMs } from '../../lib/format';
import { createTimeScale, type TimeScale } from '../../lib/time-scale';
import { PHASE_COLORS, phaseSegments } from '../../lib/phases';

const ROW_H = 22;
const COLUMNS: Array<{ key: SortKey; label: string; width: string; num?: boolean }> = [
  { key: 'name', label: 'Name', width: 'minmax(180px, 2.2fr)' },
  { key: 'method', label: 'Method', width: '62px' },
  { key: 'status', label: 'Status', width: '58px' },
  { key: 'host', label: 'Host', width: 'minmax(110px, 1fr)' },
  { key: 'type', label: 'Type', width: '78px' },
  { key: 'protocol', label: 'Protocol', width: '66px' },
  { key: 'size', label: 'Size', width: '74px', num: true },
  { key: 'time', label: 'Time', width: '70px', num: true },
  { key: 'start', label: 'Waterfall', width: 'minmax(120px, 1.2fr)' },
];
/** With the Details pane open the list narrows: Host and Protocol go (as DevTools drops columns). */
const COMPACT_HIDDEN = new Set<SortKey>(['host', 'protocol']);
const WATERFALL_PX = 200; // nominal width the mini bars are laid out in; the cell scales it with CSS

interface Props {
  rows: ExchangeSummary[];
  selectedId?: string;
  onSelect(id: string): void;
  compact: boolean;
  /** Right-click on a row: the row and where the pointer is (the row is selected too). */
  onRowMenu?(row: ExchangeSummary, x: number, y: number): void;
}

const MiniBar = memo(function MiniBar({ row, scale }: { row: ExchangeSummary; scale: TimeScale }) {
  const left = scale.toPx(row.startTime);
  if (row.state === 'pending' || !row.timings) {
    return <div className="bar" style={{ left: `${(left / WATERFALL_PX) * 100}%`, width: 2, background: '#5f6368' }} />;
  }
  const segs = phaseSegments(row.timings);
  if (segs.length === 0) {
    // No phase applies (e.g. a refused connection): show the whole duration.
    return (
      <div
        className="bar"
        style={{
          left: `${(left / WATERFALL_PX) * 100}%`,
          width: `${(scale.spanPx(row.duration) / WATERFALL_PX) * 100}%`,
          background: row.state === 'error' ? '#f28b82' : '#5f6368',
        }}
      />
    );
  }
  return (
    <>
      {segs.map((s) => (
        <div
          key={s.phase}
          className="bar"
          style={{
            left: `${((left + scale.spanPx(s.start)) / WATERFALL_PX) * 100}%`,
            width: `${(scale.spanPx(s.end - s.start) / WATERFALL_PX) * 100}%`,
            background: PHASE_COLORS[s.phase],
          }}
        />
      ))}
    </>
  );
});

const Row = memo(function Row({
  row,
  selected,
  onSelect,
  scale,
  top,
  template,
  compact,
  onMenu,
}: {
  row: ExchangeSummary;
  selected: boolean;
  onSelect(id: string): void;
  scale: TimeScale;
  top: number;
  template: string;
  compact: boolean;
  onMenu?(row: ExchangeSummary, x: number, y: number): void;
}) {
  const cls = statusClassOf(row);
  return (
    <div
      className={`grid-row ${selected ? 'selected' : ''} ${cls === 'error' ? 'error-row' : ''} ${cls === 'pending' ? 'pending-row' : ''}`}
      style={{ gridTemplateColumns: template, position: 'absolute', top, left: 0, right: 0 }}
      onMouseDown={() => onSelect(row.id)}
      onContextMenu={
        onMenu &&
        ((e) => {
          e.preventDefault();
          onMenu(row, e.clientX, e.clientY);
        })
      }
      role="row"
      aria-selected={selected}
      data-testid="traffic-row"
      data-id={row.id}
      title={row.error ? `${row.error.message} [${row.error.code}]` : row.url}
    >
      <div>
        {row.mocked && (
          <span className="mock-mark" title="Mocked by a rule — not from the network" data-testid="row-mocked">
            mock
          </span>
        )}
        {displayName(row.url)}
      </div>
      <div>{row.method}</div>
      <div className={`status-${cls}`}>{row.status ?? (cls === 'pending' ? '…' : '(failed)')}</div>
      {!compact && <div className="muted">{row.host}</div>}
      <div className="muted">{resourceTypeOf(row)}</div>
      {!compact && <div className="muted">{row.protocol}</div>}
      <div className="num">{formatBytes(row.responseSize)}</div>
      <div className="num">{row.duration >= 0 ? formatMs(row.duration) : 'pending'}</div>
      <div className="mini-wf">
        <MiniBar row={row} scale={scale} />
      </div>
    </div>
  );
});

export function TrafficTable({ rows, selectedId, onSelect, compact, onRowMenu }: Props) {
  const columns = useMemo(() => (compact ? COLUMNS.filter((c) => !COMPACT_HIDDEN.has(c.key)) : COLUMNS), [compact]);
  const template = columns.map((c) => c.width).join(' ');
  const [sort, setSort] = useState<{ key: SortKey; dir: 'asc' | 'desc' }>({ key: 'start', dir: 'asc' });
  const sorted = useMemo(() => (sort.key === 'start' && sort.dir === 'asc' ? rows : sortRows(rows, sort.key, sort.dir)), [rows, sort]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: sorted.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 12,
  });

  // One time axis for all mini bars: first start → last end of the rows shown.
  const scale = useMemo(() => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of rows) {
      if (r.startTime < lo) lo = r.startTime;
      const end = r.startTime + Math.max(0, r.duration);
      if (end > hi) hi = end;
    }
    return createTimeScale(lo === Infinity ? { start: 0, end: 1 } : { start: lo, end: hi }, WATERFALL_PX);
  }, [rows]);

  // DevTools-like keys: ↑/↓ move the selection (and keep it in view), Home/End jump.
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (sorted.length === 0) return;
    const at = selectedId ? sorted.findIndex((r) => r.id === selectedId) : -1;
    const next =
      e.key === 'ArrowDown'
        ? Math.min(sorted.length - 1, at + 1)
        : e.key === 'ArrowUp'
          ? Math.max(0, at - 1)
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? sorted.length - 1
              : undefined;
    if (next === undefined) return;
    e.preventDefault();
    onSelect(sorted[next]!.id);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  const onHeader = (key: SortKey) =>
    setSort((s) =>
      s.key === key ? { key, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: key === 'size' || key === 'time' ? 'desc' : 'asc' },
    );

  return (
    <div className="table-wrap" role="grid" aria-rowcount={sorted.length} data-testid="traffic-table">
      <div className="grid-head" style={{ gridTemplateColumns: template }}>
        {columns.map((c) => (
          <div
            key={c.key}
            onClick={() => onHeader(c.key)}
            style={c.num ? { justifyContent: 'flex-end' } : undefined}
            title={`Sort by ${c.label}`}
          >
            {c.label}
            {sort.key === c.key && !(c.key === 'start' && sort.dir === 'asc') && <span>{sort.dir === 'asc' ? '▲' : '▼'}</span>}
          </div>
        ))}
      </div>
      <div className="scroller" ref={scrollRef} tabIndex={0} onKeyDown={onKeyDown} data-testid="traffic-scroller">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = sorted[v.index]!;
            return (
              <Row
                key={row.id}
                row={row}
                top={v.start}
                selected={row.id === selectedId}
                onSelect={onSelect}
                scale={scale}
                template={template}
                compact={compact}
                onMenu={onRowMenu}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
