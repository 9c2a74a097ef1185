/**
 * HAR entries of an opened session → the contract's rows and details: the shared,
 * pure har-row.ts bound to the session store's capped reads, whose cut strings
 * carry a per-process marker (sessions/capped-json.ts `splitCut`) that only the
 * core can read, and to Buffer's native UTF-8 count and copy (rows of 100,000
 * entries with long values build about 1.7× faster than with the pure ones). See har-row.ts for the caps.
 */
import { splitCut } from '../sessions/capped-json.js';
import { harView } from './har-row.js';

export {
  DETAIL_BUDGET,
  FIELD_CAP,
  FIELD_CHUNK,
  HEADER_COUNT_CAP,
  READ_CAP,
  ROW_TEXT_CAP,
  ROW_URL_CAP,
  fieldChunk,
  type FieldValue,
} from './har-row.js';

const view = harView({
  splitCut,
  byteLength: (s) => Buffer.byteLength(s),
  // Through UTF-16 bytes: a flat copy that keeps lone surrogates.
  copy: (s) => Buffer.from(s, 'utf16le').toString('utf16le'),
});

/** `value` cut to `cap` characters, with the cut described when there was one (here or while reading). */
export const cutText = view.cutText;
/** Row `h<i>` of a session. */
export const sessionRow = view.row;
/** Details of entry `index`. */
export const sessionDetail = view.detail;
/** The whole value a `SessionField` names. */
export const fieldValue = view.fieldValue;
/** The pages of a session, bounded. */
export const sessionPages = view.pages;
/** postData as text: `text`, or `params` joined like a form (stopping past `limit` characters). */
export const postDataText = view.postDataText;
