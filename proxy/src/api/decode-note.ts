/**
 * The note shown above raw bytes whose Content-Encoding would not decode. Pure
 * (no Node modules): the core's body views and the renderer's HAR bodies share it.
 * `error` is a decoder message or a HAR `_decodingError` ("gzip: incorrect header check").
 */
export function decodeFailureNote(encoding: string | undefined, error: string): string {
  const m = /^([\w-]+(?:\s*,\s*[\w-]+)*): (.*)$/s.exec(error);
  const coding = encoding || m?.[1] || 'content';
  const why = m && (!encoding || m[1] === encoding) ? m[2] : error;
  return `Content-Encoding ${coding} could not be decoded: ${why}; showing the raw bytes.`;
}
