/**
 * Reading a HAR file's text as loosely as the UI's views allow: used for the
 * lab's HARs (lab-service.ts `getLabHar`). The session store validates imports
 * against the HAR 1.2 schema instead (proxy/src/sessions).
 */
import type { LooseHarEntry, LooseHarLog } from '../har/types.js';
import { ErrorCodes, NetlensError } from '../errors.js';

/** A HAR log as read: only `entries` is known to be an array. */
export type ParsedLog = LooseHarLog & { entries: LooseHarEntry[] };

/** Parses HAR text (a leading BOM is allowed) and checks only that it has a `log.entries` array. */
export function parseHarText(fileName: string, text: string): ParsedLog {
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    const why = (err as Error).message;
    throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `${fileName} is not valid JSON (${why}). Is it a complete HAR file?`);
  }
  const log = (doc as { log?: ParsedLog } | null)?.log;
  if (!log || !Array.isArray(log.entries)) {
    throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `${fileName} is not a HAR file: it has no "log.entries" array.`);
  }
  return log;
}
