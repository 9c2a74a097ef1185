/**
 * The proxy settings popover: port, intercept, HTTP/2, Nagle, body capture limit, upstream CA
 * files and insecure upstream. The core checks every value (NL_* errors arrive as toasts) and
 * restarts a running proxy to apply them.
 */
import { useState } from 'react';
import type { ProxyConfig, ProxyStatus } from '../../../../proxy/src/api/contract';

interface Props {
  proxy: ProxyStatus;
  busy: boolean;
  onClose(): void;
  onApply(config: ProxyConfig): void;
}

/** Bodies are set in KiB: bytes are too fine to type, MiB too coarse for small limits. */
const KIB = 1024;

export function SettingsPanel({ proxy, busy, onClose, onApply }: Props) {
  const [draft, setDraft] = useState<ProxyConfig>(proxy.config);
  // Kept as typed (one path per line) so editing does not jump; split when applied.
  const [caText, setCaText] = useState(proxy.config.upstreamCAFiles.join('\n'));
  const [limitKiB, setLimitKiB] = useState(String(Math.round(proxy.config.bodyCaptureLimit / KIB)));

  const apply = () => {
    const kib = Number(limitKiB);
    onApply({
      ...draft,
      // A non-number goes to the core as it is, which answers with what is allowed.
      bodyCaptureLimit: Number.isFinite(kib) ? Math.round(kib * KIB) : (limitKiB as unknown as number),
      upstreamCAFiles: caText
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    });
  };

  return (
    <div className="popover settings" data-testid="settings-panel">
      <h3>Proxy settings</h3>
      <div className="form-row">
        <label htmlFor="px-port">Port</label>
        <input
          id="px-port"
          type="number"
          min={0}
          max={65535}
          value={draft.port}
          onChange={(e) => setDraft({ ...draft, port: Number(e.target.value) })}
          style={{ width: 90 }}
        />
        <span className="muted">0 = any free port</span>
      </div>
      {(
        [
          ['intercept', 'Intercept HTTPS', 'terminate TLS with the local CA and record every request (off: blind CONNECT tunnel)'],
          ['http2', 'HTTP/2', 'offer h2 to clients and use it upstream when the origin supports it'],
          ['nagle', "Nagle's algorithm", 'leave Nagle on for proxy sockets (slower; for comparison)'],
        ] as const
      ).map(([key, label, help]) => (
        <label className="check-row" key={key}>
          <input
            type="checkbox"
            checked={draft[key]}
            onChange={(e) => setDraft({ ...draft, [key]: e.target.checked })}
            data-testid={`opt-${key}`}
          />
          <span>
            {label}
            <span className="muted"> — {help}</span>
          </span>
        </label>
      ))}
      <div className="form-row">
        <label htmlFor="px-body-limit">Body capture</label>
        <input
          id="px-body-limit"
          type="number"
          min={0}
          max={65536}
          value={limitKiB}
          onChange={(e) => setLimitKiB(e.target.value)}
          style={{ width: 90 }}
          data-testid="opt-body-limit"
        />
        <span className="muted">KiB per body (0 = record no bodies, at most 65536); larger bodies are cut and marked</span>
      </div>
      {!(Number(limitKiB) >= 0 && Number(limitKiB) <= 65536) && (
        <div className="note error" style={{ margin: '0 0 6px' }} data-testid="body-limit-hint">
          Body capture must be 0–65536 KiB (64 MiB).
        </div>
      )}
      <div className="form-field">
        <label htmlFor="px-upstream-ca">Upstream CA files</label>
        <textarea
          id="px-upstream-ca"
          className="mono"
          rows={2}
          spellCheck={false}
          placeholder="/path/to/staging-ca.pem (one absolute path per line)"
          value={caText}
          onChange={(e) => setCaText(e.target.value)}
          data-testid="opt-upstream-ca"
        />
        <span className="muted">
          PEM certificates of private CAs (staging, intranet) the proxy trusts for origins, besides the system&apos;s
        </span>
      </div>
      <label className="check-row">
        <input
          type="checkbox"
          checked={draft.insecureUpstream}
          onChange={(e) => setDraft({ ...draft, insecureUpstream: e.target.checked })}
          data-testid="opt-insecureUpstream"
        />
        <span>
          Do not verify upstream certificates
          <span className="muted"> — testing only</span>
        </span>
      </label>
      {draft.insecureUpstream && (
        <div className="note error" style={{ margin: '0 0 6px' }}>
          Any server can then pose as any site, and Netlens will not tell you. Prefer adding its CA file above.
        </div>
      )}
      {proxy.error && <div className="note error">{proxy.error.message}</div>}
      <div className="form-row" style={{ justifyContent: 'flex-end' }}>
        <button className="btn" onClick={onClose}>
          Close
        </button>
        <button className="btn primary" disabled={busy} onClick={apply} data-testid="settings-apply">
          {proxy.running ? 'Apply & restart' : 'Save'}
        </button>
      </div>
    </div>
  );
}
