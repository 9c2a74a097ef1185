/** The Traffic filter bar: text query, method, status classes, resource types, host. */
import { useMemo } from 'react';
import type { ExchangeSummary } from '../../../../proxy/src/api/contract';
import { EMPTY_FILTER, hostCounts, isFilterActive, type StatusClass, type TrafficFilter } from '../../lib/filters';
import { RESOURCE_TYPES, type ResourceType } from '../../lib/resource-type';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT'];
const STATUS: StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'error', 'pending'];

function toggle<T>(list: T[], item: T): T[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

export function FilterBar({
  filter,
  onChange,
  rows,
  children,
}: {
  filter: TrafficFilter;
  onChange(f: TrafficFilter): void;
  rows: readonly ExchangeSummary[];
  children?: React.ReactNode;
}) {
  const hosts = useMemo(() => hostCounts(rows).slice(0, 200), [rows]);
  return (
    <div className="toolbar" data-testid="filter-bar">
      {children}
      <input
        type="search"
        className="filter-input"
        placeholder="Filter URLs   status:404  -exclude  /regex/"
        title="Terms all must match: text (URL), -text (exclude), method:POST, status:404 or status:4xx, host:, type:image, mime:json, larger-than:10k, /regex/"
        value={filter.text}
        onChange={(e) => onChange({ ...filter, text: e.target.value })}
        aria-label="Filter"
        data-testid="filter-text"
      />
      <select
        value={filter.methods[0] ?? ''}
        onChange={(e) => onChange({ ...filter, methods: e.target.value ? [e.target.value] : [] })}
        aria-label="Method"
        data-testid="filter-method"
      >
        <option value="">All methods</option>
        {METHODS.map((m) => (
          <option key={m}>{m}</option>
        ))}
      </select>
      <select
        value={filter.host}
        onChange={(e) => onChange({ ...filter, host: e.target.value })}
        aria-label="Host"
        style={{ maxWidth: 200 }}
        data-testid="filter-host"
      >
        <option value="">All hosts</option>
        {hosts.map((h) => (
          <option key={h.host} value={h.host}>
            {h.host} ({h.count})
          </option>
        ))}
      </select>
      <span className="sep" />
      <div className="chips" role="group" aria-label="Status">
        {STATUS.map((s) => (
          <button
            key={s}
            className={`chip ${filter.statusClasses.includes(s) ? 'on' : ''}`}
            onClick={() => onChange({ ...filter, statusClasses: toggle(filter.statusClasses, s) })}
          >
            {s}
          </button>
        ))}
      </div>
      <span className="sep" />
      <div className="chips" role="group" aria-label="Type">
        <button className={`chip ${filter.types.length === 0 ? 'on' : ''}`} onClick={() => onChange({ ...filter, types: [] })}>
          All
        </button>
        {RESOURCE_TYPES.map(({ type, label }) => (
          <button
            key={type}
            className={`chip ${filter.types.includes(type) ? 'on' : ''}`}
            onClick={() => onChange({ ...filter, types: toggle<ResourceType>(filter.types, type) })}
            data-testid={`type-${type}`}
          >
            {label}
          </button>
        ))}
      </div>
      {isFilterActive(filter) && (
        <button className="btn ghost small" onClick={() => onChange(EMPTY_FILTER)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
