/** Details of the selected exchange: headers, request payload, response body, timing. */
import { useEffect, useState } from 'react';
import type { ExchangeDetail, ExchangeSummary, HeaderList } from '../../../../proxy/src/api/contract';
import { errorMessage } from '../../api';
import { formatBytes, formatMs } from '../../lib/format';
import { toCurl } from '../../lib/curl';
import { useToasts } from '../../ui/Toasts';
import { BodyPanel } from './BodyPanel';
import { TimingPanel } from './TimingPanel';
import type { ExchangeSource } from './source';

type Tab = 'headers' | 'payload' | 'response' | 'timing';

function Section({ title, badge, children, testid }: { title: string; badge?: string; children: React.ReactNode; testid?: string }) {
  const [open, setOpen] = useState(true);
  return (
    <div className="section" data-testid={testid}>
      <div className="section-title" onClick={() => setOpen(!open)}>
        <span>{open ? '▾' : '▸'}</span>
        {title}
        {badge && <span className="badge">{badge}</span>}
      </div>
      {open && children}
    </div>
  );
}

function Headers({ headers }: { headers: HeaderList }) {
  if (headers.length === 0) return <div className="kv muted">No headers</div>;
  return (
    <div className="kv">
      {headers.map(([n, v], i) => (
        <HeaderLine key={i} name={n} value={v} />
      ))}
    </div>
  );
}

function HeaderLine({ name, value, plain }: { name: string; value: string; plain?: boolean }) {
  return (
    <>
      <span className={plain ? 'k plain' : 'k'}>{name}</span>
      <span className="v">{value}</span>
    </>
  );
}

export function DetailsPane({ row, source, onClose }: { row: ExchangeSummary; source: ExchangeSource; onClose(): void }) {
  const toast = useToasts();
  const [tab, setTab] = useState<Tab>('headers');
  const copyCurl = async () => {
    try {
      const body = await source.body(row.id, 'request');
      const cmd = toCurl({ method: row.method, url: row.url, headers: detail?.request.headers ?? [], body: body.kind === 'text' ? body.data : undefined, httpVersion: row.protocol });
      await navigator.clipboard.writeText(cmd);
      toast.show('Copied the request as a cURL command', 'ok');
    } catch (err) {
      toast.error(err, 'Could not copy');
    }
  };
  const [detail, setDetail] = useState<ExchangeDetail>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    setError(undefined);
    source.detail(row.id).then(
      (d) => live && setDetail(d),
      (err) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [row.id, row.state, source]);

  const general: Array<[string, React.ReactNode]> = [
    ['Request URL', row.url],
    ['Request Method', row.method],
    ['Status Code', row.status !== undefined ? `${row.status} ${row.statusText ?? ''}` : row.state === 'pending' ? '(pending)' : '(failed)'],
    ['Protocol', detail?.upstreamProtocol && detail.upstreamProtocol !== row.protocol ? `${row.protocol} → ${detail.upstreamProtocol} upstream` : row.protocol],
  ];
  if (row.serverIPAddress) general.push(['Remote Address', row.serverIPAddress]);
  if (row.transport) general.push(['Transport', row.transport === 'intercepted' ? 'TLS intercepted' : row.transport]);
  if (row.connection) general.push(['Connection', `${row.connection}${detail?.upstreamConnectionNew === true ? ' (new)' : detail?.upstreamConnectionNew === false ? ' (reused)' : ''}`]);
  if (detail?.nagle !== undefined) general.push(["Nagle's algorithm", detail.nagle ? 'on' : 'off (setNoDelay)']);
  if (detail?.retries) general.push(['Retries', String(detail.retries)]);
  if (detail?.tunnelBytes) general.push(['Tunnel bytes', `↑ ${formatBytes(detail.tunnelBytes.up)} ↓ ${formatBytes(detail.tunnelBytes.down)}`]);
  general.push(['Duration', formatMs(row.duration)]);

  return (
    <aside className="details" data-testid="details">
      <div className="details-tabs" role="tablist">
        <button className="icon-btn" onClick={onClose} title="Close" aria-label="Close details" style={{ height: '100%' }}>
          ✕
        </button>
        {(['headers', 'payload', 'response', 'timing'] as const).map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={`tab ${tab === t ? 'active' : ''}`} onClick={() => setTab(t)} data-testid={`details-tab-${t}`}>
            {t[0]!.toUpperCase() + t.slice(1)}
          </button>
        ))}
        <div className="spacer" />
        <button className="icon-btn" style={{ height: '100%' }} disabled={!detail} onClick={copyCurl} title="Copy the request as a cURL command" data-testid="copy-curl">
          Copy as cURL
        </button>
      </div>
      <div className="details-body">
        {row.error && (
          <div className="note error" data-testid="details-error">
            <b>{row.error.code}</b>: {row.error.message}
          </div>
        )}
        {error && <div className="note error">Could not load the details: {error}</div>}
        {tab === 'headers' && (
          <>
            <Section title="General" testid="details-general">
              <div className="kv">
                {general.map(([k, v]) => (
                  <HeaderLine key={k} name={k} value={v as string} plain />
                ))}
              </div>
            </Section>
            {!detail && !error && (
              <div className="empty">
                <div className="spinner" />
              </div>
            )}
            {detail?.response && (
              <Section title="Response Headers" badge={`${detail.response.headers.length} · ${detail.response.httpVersion}`} testid="response-headers">
                <Headers headers={detail.response.headers} />
              </Section>
            )}
            {detail && (
              <Section title="Request Headers" badge={`${detail.request.headers.length} · ${detail.request.httpVersion}`} testid="request-headers">
                <Headers headers={detail.request.headers} />
              </Section>
            )}
          </>
        )}
        {tab === 'payload' && <BodyPanel id={row.id} side="request" source={source} state={row.state} />}
        {tab === 'response' && <BodyPanel id={row.id} side="response" source={source} state={row.state} />}
        {tab === 'timing' && <TimingPanel row={row} detail={detail} />}
      </div>
    </aside>
  );
}
