/**
 * Proxy controls in the top bar: on/off, address, settings (port, intercept,
 * HTTP/2, Nagle), "Launch browser", and the CA with how to trust it.
 */
import { useEffect, useState } from 'react';
import type { AppStatus, ProxyConfig } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { useToasts } from '../../ui/Toasts';

interface Props {
  status?: AppStatus;
  statusError?: string;
  onStatus(s: AppStatus): void;
  refresh(): Promise<void>;
}

export function ProxyBar({ status, statusError, onStatus, refresh }: Props) {
  const toast = useToasts();
  const [busy, setBusy] = useState(false);
  const [panel, setPanel] = useState<'settings' | 'ca' | undefined>();
  const [draft, setDraft] = useState<ProxyConfig | undefined>(status?.proxy.config);
  useEffect(() => setDraft(status?.proxy.config), [status?.proxy.config]);

  if (!status) {
    return <span className={statusError ? 'err' : 'muted'}>{statusError ? `Cannot reach Netlens: ${statusError}` : 'Connecting…'}</span>;
  }
  const p = status.proxy;
  const run = async (op: () => Promise<unknown>, ok?: string) => {
    setBusy(true);
    try {
      await op();
      if (ok) toast.show(ok, 'ok');
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  return (
    <div style={{ display: 'flex', alignItems: 'center', gap: 6 }}>
      <div className="proxy-pill" data-testid="proxy-status" title={p.error ? p.error.message : undefined}>
        <span className={`dot ${p.running ? 'on' : p.error ? 'bad' : ''}`} />
        {p.running ? (
          <span>
            Proxy <span className="mono">{p.address?.url.replace('http://', '')}</span>
          </span>
        ) : (
          <span className={p.error ? 'err' : 'muted'}>{p.error ? 'Proxy failed to start' : 'Proxy off'}</span>
        )}
        <span className="muted" style={{ fontSize: 11 }}>
          {p.config.intercept ? 'intercept' : 'tunnel'} · {p.config.http2 ? 'h2' : 'h1'}
          {p.config.nagle ? ' · Nagle' : ''}
        </span>
      </div>
      {p.running ? (
        <button className="btn" disabled={busy} onClick={() => run(() => api.stopProxy(), 'Proxy stopped')} data-testid="proxy-stop">
          Stop
        </button>
      ) : (
        <button className="btn primary" disabled={busy} onClick={() => run(() => api.startProxy(), 'Proxy started')} data-testid="proxy-start">
          Start proxy
        </button>
      )}
      <button className="btn ghost" onClick={() => setPanel(panel === 'settings' ? undefined : 'settings')} aria-expanded={panel === 'settings'} data-testid="proxy-settings">
        Settings
      </button>
      <button
        className="btn"
        disabled={busy || !p.running || !status.features.browser}
        title={
          !status.features.browser
            ? 'Browser launch is not part of this build'
            : !p.running
              ? 'Start the proxy first'
              : status.features.display === false
                ? 'This machine has no display, so no Chrome window can be shown: click for what to do instead'
                : 'Opens Chrome with a fresh profile, wired to the proxy and trusting its CA'
        }
        onClick={() => run(async () => {
          const b = await api.launchBrowser();
          // The core explains a headless start (no display here); otherwise a window opened.
          toast.show(b.message ?? `Chrome started (pid ${b.pid ?? '?'}) through the proxy: its window is open`, b.headless ? 'info' : 'ok');
        })}
        data-testid="launch-browser"
      >
        Launch browser
      </button>
      <button className="btn ghost" onClick={() => setPanel(panel === 'ca' ? undefined : 'ca')} data-testid="proxy-ca">
        CA certificate
      </button>
      {panel === 'settings' && draft && (
        <div className="popover" data-testid="settings-panel">
          <h3>Proxy settings</h3>
          <div className="form-row">
            <label htmlFor="px-port">Port</label>
            <input id="px-port" type="number" min={0} max={65535} value={draft.port} onChange={(e) => setDraft({ ...draft, port: Number(e.target.value) })} style={{ width: 90 }} />
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
              <input type="checkbox" checked={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.checked })} data-testid={`opt-${key}`} />
              <span>
                {label}
                <span className="muted"> — {help}</span>
              </span>
            </label>
          ))}
          {p.error && <div className="note error">{p.error.message}</div>}
          <div className="form-row" style={{ justifyContent: 'flex-end' }}>
            <button className="btn" onClick={() => setPanel(undefined)}>
              Close
            </button>
            <button
              className="btn primary"
              disabled={busy}
              onClick={() =>
                run(async () => {
                  const proxy = await api.configureProxy(draft);
                  onStatus({ ...status, proxy });
                  setPanel(undefined);
                }, p.running ? 'Proxy restarted with the new settings' : 'Settings saved')
              }
            >
              {p.running ? 'Apply & restart' : 'Save'}
            </button>
          </div>
        </div>
      )}
      {panel === 'ca' && (
        <div className="popover" data-testid="ca-panel">
          <h3>Local certificate authority</h3>
          {p.ca ? (
            <>
              <div className="kv" style={{ padding: '0 0 8px' }}>
                <span className="k plain">Certificate</span>
                <span className="v">{p.ca.certPath}</span>
                <span className="k plain">SHA-256</span>
                <span className="v">{p.ca.fingerprint}</span>
                <span className="k plain">Leaf SPKI</span>
                <span className="v">{p.ca.leafSpkiHash}</span>
              </div>
              <p className="muted" style={{ margin: '0 0 6px' }}>
                Clients must trust this certificate to let Netlens show HTTPS. "Launch browser" does this for you.
              </p>
              <pre className="mono">{p.trustHelp}</pre>
            </>
          ) : (
            <p className="muted">The CA is created the first time the proxy starts (in {status.dataDir}).</p>
          )}
        </div>
      )}
    </div>
  );
}
