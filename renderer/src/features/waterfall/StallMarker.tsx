/** The waterfall's mark on a stalled request: a small red tag whose tooltip says what stalled and where to look. */
import { stallLabel } from '../../lib/connections';

export function StallMarker({ stall }: { stall: { count: number; ms: number } }) {
  const text =
    `Stalled: ${stallLabel(stall)}. Its bytes probably waited in the kernel (Nagle's algorithm meeting a delayed ACK). ` +
    "See the Connections view or the request's Connection tab.";
  return (
    <span className="stall-marker" title={text} aria-label={text} data-testid="stall-marker">
      stall
    </span>
  );
}
