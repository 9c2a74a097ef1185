/**
 * The local CA popover: fingerprint, how to trust it (each command on one line that scrolls
 * rather than wraps mid-word, with a Copy button) and a Download of the certificate (PEM only:
 * the core never hands out the key).
 */
import type { AppStatus } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { useToasts } from '../../ui/Toasts';
import { downloadText } from '../sessions/download';
import { copyText } from './copy';

/** One line of `trustHelp` ("  curl:     curl -x …"): its label and, when it is something to paste, the command. */
export function trustLines(help: string): { label?: string; text: string; command?: string }[] {
  return help.split('\n').map((line) => {
    const m = /^ {2}(\S[^:]*):\s+(.*)$/.exec(line);
    if (!m) return { text: line.trim() };
    const text = m[2];
    // Commands and flags are pasted; instructions ("open the file in…") are read.
    const pastable = /^(curl |NODE_EXTRA_CA_CERTS=|--|sudo )/.test(text);
    return { label: m[1], text, command: pastable ? text.replace(/ \(.*$/, '').replace(/,$/, '') : undefined };
  });
}

export function CaPanel({ status }: { status: AppStatus }) {
  const toast = useToasts();
  const p = status.proxy;
  const copy = async (text: string) => {
    try {
      await copyText(text);
      toast.show('Copied to the clipboard', 'ok');
    } catch (err) {
      toast.error(err, 'Copy failed');
    }
  };
  const download = async () => {
    try {
      const { fileName, text } = await api.getCaCertificate();
      downloadText(fileName, text, 'application/x-pem-file');
    } catch (err) {
      toast.error(err, 'Download failed');
    }
  };
  return (
    <div className="popover ca" data-testid="ca-panel">
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
          <div className="form-row" style={{ margin: '0 0 8px' }}>
            <span className="muted" style={{ flex: 1 }}>
              Clients must trust this certificate to let Netlens show HTTPS. &quot;Launch browser&quot; does this for you.
            </span>
            <button
              className="btn"
              onClick={download}
              data-testid="ca-download"
              title="The certificate only (PEM); the key stays in the data directory"
            >
              Download certificate
            </button>
          </div>
          <div className="trust-lines" data-testid="ca-trust">
            {trustLines(p.trustHelp ?? '').map((l, i) =>
              l.label ? (
                <div className="trust-line" key={i}>
                  <span className="muted">{l.label}</span>
                  <code className="cmd mono" title={l.text} tabIndex={0} data-testid={l.command ? 'ca-command' : undefined}>
                    {l.text}
                  </code>
                  {l.command ? (
                    <button className="btn ghost small" onClick={() => copy(l.command!)} data-testid="ca-copy" title={`Copy: ${l.command}`}>
                      Copy
                    </button>
                  ) : (
                    <span />
                  )}
                </div>
              ) : (
                <div className="trust-note muted" key={i}>
                  {l.text}
                </div>
              ),
            )}
          </div>
        </>
      ) : (
        <p className="muted">The CA is created the first time the proxy starts (in {status.dataDir}).</p>
      )}
    </div>
  );
}
