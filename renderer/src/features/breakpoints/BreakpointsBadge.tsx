/** The top bar's count of paused exchanges: visible from every view, opens the queue. */
interface Props {
  count: number;
  open: boolean;
  onToggle(): void;
}

export function BreakpointsBadge({ count, open, onToggle }: Props) {
  if (count === 0 && !open) return null;
  return (
    <button
      className={`btn small bp-badge ${count > 0 ? 'active' : ''}`}
      onClick={onToggle}
      aria-expanded={open}
      title="Exchanges paused by breakpoint rules: open the queue to edit, continue or abort them"
      data-testid="breakpoints-badge"
    >
      <span className="bp-dot" /> Paused <b data-testid="breakpoints-count">{count}</b>
    </button>
  );
}
