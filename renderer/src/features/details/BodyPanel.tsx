/**
 * A body, shown the way its type wants: JSON pretty-printed, text as text,
 * images as images, anything else as a hex dump. Notes say when the body was
 * decoded, cut by the capture limit, or cut for display.
 */
import { useEffect, useMemo, useState } from 'react';
import type { BodyView } from '../../../../proxy/src/api/contract';
import { errorMessage } from '../../api';
import { base64ToBytes, formatBinaryBytes, formatBytes, hexDump, prettyJson } from '../../lib/format';
import type { ExchangeSource } from './source';
import { CutValue } from './CutValue';

const HEX_LIMIT = 64 * 1024;

/** Shows an image body with its size in pixels (read from the decoded image, so any format the browser knows works). */
function ImageBody({ body }: { body: BodyView }) {
  const [size, setSize] = useState<{ w: number; h: number } | 'broken'>();
  return (
    <div className="body-view">
      <img
        src={`data:${body.mimeType};base64,${body.data}`}
        alt="Response body"
        data-testid="body-image"
        onLoad={(e) => setSize({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
        onError={() => setSize('broken')}
      />
      <div className={size === 'broken' ? 'note error' : 'muted'} style={{ marginTop: 6 }} data-testid="body-image-size">
        {size === undefined ? '' : size === 'broken' ? 'The browser could not decode this image.' : `${size.w} × ${size.h} px`}
      </div>
    </div>
  );
}

function Content({ body }: { body: BodyView }) {
  const [raw, setRaw] = useState(false);
  const pretty = useMemo(
    () =>
      body.kind === 'text' && (body.mimeType.includes('json') || body.data.trimStart()[0] === '{' || body.data.trimStart()[0] === '[')
        ? prettyJson(body.data)
        : undefined,
    [body],
  );
  if (body.kind === 'text') {
    return (
      <div className="body-view">
        {pretty && (
          <div style={{ marginBottom: 6 }}>
            <button className="btn small" onClick={() => setRaw(!raw)}>
              {raw ? 'Pretty' : 'Raw'}
            </button>
          </div>
        )}
        <pre data-testid="body-text">{pretty && !raw ? pretty : body.data}</pre>
      </div>
    );
  }
  // Raw bytes that failed to decode are not the image: show them as hex (the note above says why).
  if (body.mimeType.startsWith('image/') && body.mimeType !== 'image/svg+xml' && !body.decodeError) return <ImageBody body={body} />;
  const bytes = base64ToBytes(body.data);
  return (
    <div className="body-view">
      {bytes.length > HEX_LIMIT && <div className="note info">Binary body: showing the first {formatBytes(HEX_LIMIT)} as hex.</div>}
      <pre data-testid="body-hex">{hexDump(bytes, HEX_LIMIT)}</pre>
    </div>
  );
}

/** Bytes of the body that `data` holds (base64 or UTF-8 text). */
function shownBytes(body: BodyView): number {
  return body.kind === 'base64' ? Math.floor((body.data.length * 3) / 4) : new Blob([body.data]).size;
}

export function BodyPanel({
  id,
  side,
  source,
  state,
}: {
  id: string;
  side: 'request' | 'response';
  source: ExchangeSource;
  state: string;
}) {
  const [body, setBody] = useState<BodyView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setBody(undefined);
    setError(undefined);
    source.body(id, side).then(
      (b) => live && setBody(b),
      (err) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [id, side, source, state]);

  if (error) return <div className="note error">Could not load the body: {error}</div>;
  if (!body)
    return (
      <div className="empty">
        <div className="spinner" />
        Loading body…
      </div>
    );
  if (body.kind === 'none') {
    return (
      <div className="empty" data-testid="body-none">
        <p>
          {state === 'pending'
            ? 'The response has not arrived yet.'
            : side === 'request'
              ? 'This request has no body.'
              : 'This response has no body.'}
        </p>
      </div>
    );
  }
  return (
    <div data-testid={`body-${side}`}>
      <div className="body-meta">
        <span>{body.mimeType || 'unknown type'}</span>
        <span>{formatBytes(body.wireSize)} on the wire</span>
        {body.contentEncoding && (
          <span>
            {body.contentEncoding} → {formatBytes(body.decodedSize)} decoded
          </span>
        )}
      </div>
      {body.decodeError && (
        <div className="note error" data-testid="body-decode-error">
          {body.decodeError}
        </div>
      )}
      {body.captureTruncated && (
        <div className="note">Only the first part of this body was recorded (capture limit). The rest went through but is not stored.</div>
      )}
      {body.displayTruncated &&
        (source.fullValue ? (
          <div className="note" data-testid="body-cut">
            <CutValue
              text=""
              lead="This body is too large to show whole:"
              cut={{ fullBytes: body.decodedSize, shownBytes: shownBytes(body) }}
              field={{ kind: side === 'request' ? 'request-body' : 'response-body' }}
              label={`${side} body`}
              save={(field, onProgress) => source.fullValue!(id, field, onProgress)}
            />
          </div>
        ) : (
          <div className="note">
            This body is {formatBinaryBytes(body.decodedSize)}: showing the first {formatBinaryBytes(shownBytes(body))}. Export the session
            as HAR for the whole body.
          </div>
        ))}
      <Content body={body} />
    </div>
  );
}
