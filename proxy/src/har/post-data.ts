/**
 * Request body → HAR `postData`: mimeType, text, and `params` for the two form
 * encodings whose fields a reader wants to see (urlencoded and multipart).
 */
import type { HarPostData, HarPostParam } from './types.js';
import { bodyText } from './body.js';

export function postData(bytes: Buffer, mimeType: string, partial: boolean): HarPostData {
  const body = bodyText(bytes, mimeType, partial);
  const out: HarPostData = { mimeType, text: body.text };
  // HAR 1.2 has no `encoding` on postData; Netlens marks base64 text in a custom field.
  if (body.encoding) out._encoding = body.encoding;
  const essence = mimeType.split(';')[0].trim().toLowerCase();
  if (essence === 'application/x-www-form-urlencoded' && !body.encoding) {
    out.params = [...new URLSearchParams(body.text)].map(([name, value]) => ({ name, value }));
  } else if (essence === 'multipart/form-data') {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(mimeType);
    if (boundary) out.params = multipartParams(bytes, boundary[1] ?? boundary[2].trim());
  }
  return out;
}

/**
 * Fields of a multipart/form-data body (RFC 7578). File contents are left out of
 * `params` (they are in `text`), as browsers do in their HARs.
 */
export function multipartParams(body: Buffer, boundary: string): HarPostParam[] {
  const params: HarPostParam[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const partStart = pos + delimiter.length;
    if (body.subarray(partStart, partStart + 2).toString() === '--') break; // closing delimiter
    const next = body.indexOf(delimiter, partStart);
    // A part without a following delimiter was cut by the capture limit: skip it.
    if (next < 0) break;
    const part = body.subarray(partStart, next);
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd >= 0) {
      const head = part.subarray(0, headEnd).toString('latin1');
      let value = part.subarray(headEnd + 4);
      if (value.subarray(-2).toString() === '\r\n') value = value.subarray(0, -2);
      const disposition = /content-disposition:([^\r\n]*)/i.exec(head)?.[1] ?? '';
      const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
      const fileName = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
      const contentType = /content-type:\s*([^\r\n]*)/i.exec(head)?.[1]?.trim();
      if (name !== undefined) {
        const param: HarPostParam = { name };
        if (fileName !== undefined) param.fileName = fileName;
        if (contentType) param.contentType = contentType;
        if (fileName === undefined) param.value = value.toString('utf8');
        params.push(param);
      }
    }
    pos = next;
  }
  return params;
}
