/** Details of the selected exchange: headers, request payload, response body, timing. */
import { useEffect, useState } from 'react';
import type { ExchangeDetail, ExchangeSummary, FieldCut, HeadDetail, SessionField } from '../../../../proxy/src/api/contract';
import { errorMessage } from '../../api';
import { formatBytes, formatMs } from '../../lib/format';
import { CutValue, type SaveField } from './CutValue';
import { toCurl } from '../../lib/curl';
import { useToasts } from '../../ui/Toasts';
import { BodyPanel } from './BodyPanel';
import { TimingPanel } from './TimingPanel';
import { ConnectionPanel } from './ConnectionPanel';
import type { ExchangeSource } from './source';
import { RulesSection, useMockThis } from './RulesSection';

type Tab = 'headers' | 'payload' | 'response' | 'timing' | 'connection';

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

function Headers({ head, kind, save }: { head: HeadDetail; kind: 'request-header' | 'response-header'; save?: SaveField }) {
  if (head.headers.length === 0) return <div className="kv muted">No headers</div>;
  return (
    <div className="kv">
      {head.headers.map(([n, v, cut], i) => (
        <HeaderLine
          key={i}
          name={<CutValue text={n} cut={cut?.name} field={{ kind, header: i, part: 'name' }} label={`header ${i + 1} name`} save={save} />}
          value={
            <CutValue text={v} cut={cut?.value} field={{ kind, header: i, part: 'value' }} label={`${n.slice(0, 40)} value`} save={save} />
          }
        />
      ))}
      {head.headersOmitted ? (
        <div className="note" style={{ gridColumn: '1 / -1', margin: '4px 0' }} data-testid="headers-omitted">
          … and {head.headersOmitted.toLocaleString()} more headers, not shown (the first {head.headers.length.toLocaleString()} are).
          Export the session as HAR for all of them.
        </div>
      ) : null}
    </div>
  );
}

function HeaderLine({ name, value, plain }: { name: React.ReactNode; value: React.ReactNode; plain?: boolean }) {
  return (
    <>
      <span className={plain ? 'k plain' : 'k'}>{name}</span>
      <span className="v">{value}</span>
    </>
  );
}

const count = (h: HeadDetail) => {
  const shown = h.headers.length.toLocaleString();
  return h.headersOmitted ? `${(h.headers.length + h.headersOmitted).toLocaleString()} (first ${shown} shown)` : shown;
};

/** True when Details shows any value cut: a cURL command built from it would not be the recorded request. */
function anyCut(detail: ExchangeDetail | undefined): boolean {
  if (!detail) return false;
  const cut = (h: HeadDetail | undefined) => Boolean(h && (h.headersOmitted || h.headers.some((x) => x[2])));
  return Boolean(detail.summary.urlCut) || cut(detail.request);
}

interface Props {
  row: ExchangeSummary;
  source: ExchangeSource;
  onClose(): void;
  /** The rows listed (the Connection tab names a request's neighbours), and selecting one of them. */
  rowsById?: ReadonlyMap<string, ExchangeSummary>;
  onSelect?(id: string): void;
}

const NO_ROWS: ReadonlyMap<string, ExchangeSummary> = new Map();
/** A neighbour picked in the Connection tab opens on that tab too (the pane is mounted afresh per request). */
let nextTab: Tab | undefined;

export function DetailsPane({ row, source, onClose, rowsById = NO_ROWS, onSelect }: Props) {
  const toast = useToasts();
  const [tab, setTab] = useState<Tab>(() => {
    const t = nextTab ?? 'headers';
    nextTab = undefined;
    return t;
  });
  const selectNeighbour = onSelect && ((id: string) => ((nextTab = 'connection'), onSelect(id)));
  const copyCurl = async () => {
    try {
      if (anyCut(detail))
        throw new Error('this request has values too large to show whole (marked "shown first …"); export the session as HAR instead');
      const body = await source.body(row.id, 'request');
      if (body.displayTruncated) throw new Error('its body is too large to copy whole; export the session as HAR instead');
      const cmd = toCurl({
        method: row.method,
        url: row.url,
        headers: detail?.request.headers ?? [],
        body: body.kind === 'text' ? body.data : undefined,
        httpVersion: row.protocol,
      });
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

  const mockThis = useMockThis(row, detail, source);
  const save: SaveField | undefined =
    source.fullValue && ((field: SessionField, onProgress) => source.fullValue!(row.id, field, onProgress));
  const url = detail?.summary.url ?? row.url;
  const urlCut: FieldCut | undefined = detail ? detail.summary.urlCut : row.urlCut;
  const general: Array<[string, React.ReactNode]> = [
    ['Request URL', <CutValue text={url} cut={urlCut} field={{ kind: 'url' }} label="URL" save={save} />],
    ['Request Method', row.method],
    [
      'Status Code',
      row.status !== undefined ? `${row.status} ${row.statusText ?? ''}` : row.state === 'pending' ? '(pending)' : '(failed)',
    ],
    [
      'Protocol',
      detail?.upstreamProtocol && detail.upstreamProtocol !== row.protocol
        ? `${row.protocol} → ${detail.upstreamProtocol} upstream`
        : row.protocol,
    ],
  ];
  if (row.serverIPAddress) general.push(['Remote Address', row.serverIPAddress]);
  if (row.transport) general.push(['Transport', row.transport === 'intercepted' ? 'TLS intercepted' : row.transport]);
  if (row.connection)
    general.push([
      'Connection',
      `${row.connection}${detail?.upstreamConnectionNew === true ? ' (new)' : detail?.upstreamConnectionNew === false ? ' (reused)' : ''}`,
    ]);
  if (detail?.nagle !== undefined) general.push(["Nagle's algorithm", detail.nagle ? 'on' : 'off (setNoDelay)']);
  if (detail?.retries) general.push(['Retries', String(detail.retries)]);
  if (detail?.tunnelBytes)
    general.push(['Tunnel bytes', `↑ ${formatBytes(detail.tunnelBytes.up)} ↓ ${formatBytes(detail.tunnelBytes.down)}`]);
  general.push(['Duration', formatMs(row.duration)]);

  return (
    <aside className="details" data-testid="details">
      <div className="details-tabs" role="tablist">
        <button className="icon-btn" onClick={onClose} title="Close" aria-label="Close details" style={{ height: '100%' }}>
          ✕
        </button>
        {(['headers', 'payload', 'response', 'timing', 'connection'] as const).map((t) => (
          <button
            key={t}
            role="tab"
            aria-selected={tab === t}
            className={`tab ${tab === t ? 'active' : ''}`}
            onClick={() => setTab(t)}
            data-testid={`details-tab-${t}`}
          >
            {t[0]!.toUpperCase() + t.slice(1)}
          </button>
        ))}
        <div className="spacer" />
        <button
          className="icon-btn"
          style={{ height: '100%' }}
          disabled={!detail?.response}
          onClick={() => void mockThis()}
          title="Make a rule that answers this request like this response, without the network"
          data-testid="mock-this"
        >
          Mock this response
        </button>
        <button
          className="icon-btn"
          style={{ height: '100%' }}
          disabled={!detail}
          onClick={copyCurl}
          title="Copy the request as a cURL command"
          data-testid="copy-curl"
        >
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
                  <HeaderLine key={k} name={k} value={v} plain />
                ))}
              </div>
            </Section>
            {detail && <RulesSection detail={detail} />}
            {!detail && !error && (
              <div className="empty">
                <div className="spinner" />
              </div>
            )}
            {detail?.response && (
              <Section
                title="Response Headers"
                badge={`${count(detail.response)} · ${detail.response.httpVersion}`}
                testid="response-headers"
              >
                <Headers head={detail.response} kind="response-header" save={save} />
              </Section>
            )}
            {detail && (
              <Section title="Request Headers" badge={`${count(detail.request)} · ${detail.request.httpVersion}`} testid="request-headers">
                <Headers head={detail.request} kind="request-header" save={save} />
              </Section>
            )}
          </>
        )}
        {tab === 'payload' && <BodyPanel id={row.id} side="request" source={source} state={row.state} />}
        {tab === 'response' && <BodyPanel id={row.id} side="response" source={source} state={row.state} />}
        {tab === 'timing' && <TimingPanel row={row} detail={detail} />}
        {tab === 'connection' && <ConnectionPanel row={row} source={source} rowsById={rowsById} onSelect={selectNeighbour} />}
      </div>
    </aside>
  );
}
