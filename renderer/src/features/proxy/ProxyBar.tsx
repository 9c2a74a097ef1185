/**
 * Proxy controls in the top bar: on/off, address, settings (SettingsPanel), a warning while
 * upstream certificates are not verified, "Launch browser", and the CA (CaPanel).
 */
import { useState } from 'react';
import type { AppStatus } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { useToasts } from '../../ui/Toasts';
import { CaPanel } from './CaPanel';
import { SettingsPanel } from './SettingsPanel';

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
      {p.config.insecureUpstream && (
        <span
          className="warn-pill"
          data-testid="insecure-warning"
          title="Upstream certificates are not verified: any server can pose as any site. Turn it off in Settings, or add the site's CA file there instead."
        >
          ⚠ Not verifying upstream certificates
        </span>
      )}
      {p.running ? (
        <button className="btn" disabled={busy} onClick={() => run(() => api.stopProxy(), 'Proxy stopped')} data-testid="proxy-stop">
          Stop
        </button>
      ) : (
        <button
          className="btn primary"
          disabled={busy}
          onClick={() => run(() => api.startProxy(), 'Proxy started')}
          data-testid="proxy-start"
        >
          Start proxy
        </button>
      )}
      <button
        className="btn ghost"
        onClick={() => setPanel(panel === 'settings' ? undefined : 'settings')}
        aria-expanded={panel === 'settings'}
        data-testid="proxy-settings"
      >
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
        onClick={() =>
          run(async () => {
            const b = await api.launchBrowser();
            // The core explains a headless start (no display here); otherwise a window opened.
            toast.show(
              b.message ?? `Chrome started (pid ${b.pid ?? '?'}) through the proxy: its window is open`,
              b.headless ? 'info' : 'ok',
            );
          })
        }
        data-testid="launch-browser"
      >
        Launch browser
      </button>
      <button className="btn ghost" onClick={() => setPanel(panel === 'ca' ? undefined : 'ca')} data-testid="proxy-ca">
        CA certificate
      </button>
      {panel === 'settings' && (
        <SettingsPanel
          key={JSON.stringify(p.config)}
          proxy={p}
          busy={busy}
          onClose={() => setPanel(undefined)}
          onApply={(config) =>
            run(
              async () => {
                const proxy = await api.configureProxy(config);
                onStatus({ ...status, proxy });
                setPanel(undefined);
              },
              p.running ? 'Proxy restarted with the new settings' : 'Settings saved',
            )
          }
        />
      )}
      {panel === 'ca' && <CaPanel status={status} />}
    </div>
  );
}
