/**
 * The one place Netlens reads undici internals: the llhttp parser undici keeps on each
 * HTTP/1.1 socket under a private symbol (`Symbol(parser)`, lib/core/symbols.js), and
 * llhttp's error-number table (lib/llhttp/constants.js).
 *
 * Why: undici reports neither the response's HTTP version (1.0 or 1.1) nor llhttp's
 * reason when a head is refused (HPE_*), and both belong in the HAR and the error shown.
 * Nothing here is public API: undici is pinned in package.json, and
 * proxy/test/proxy/undici-parser.test.ts fails, naming the undici version, when an
 * upgrade moves these internals. Until then, every reader degrades instead of
 * throwing: undefined, and callers fall back (the version from the status-line bytes
 * h1-watch.ts saw; the error without its HPE_* name).
 */
import type net from 'node:net';
import { lazyRequire } from '../lazy-require.js';

interface UndiciParser {
  llhttp: Record<string, ((ptr: number) => number) | undefined>;
  ptr: number | null;
}

let parserSymbol: symbol | undefined;

/** undici's live llhttp parser for a socket, if the internal is where undici 7 keeps it. */
function parserOf(socket: net.Socket | undefined): UndiciParser | undefined {
  if (!socket) return undefined;
  parserSymbol ??= Object.getOwnPropertySymbols(socket).find((s) => s.description === 'parser');
  const parser = parserSymbol && (socket as unknown as Record<symbol, UndiciParser | undefined>)[parserSymbol];
  return parser?.ptr ? parser : undefined;
}

/** The HTTP version llhttp is parsing on this socket (call while the head is current), or undefined if unreadable. */
export function parserHttpVersion(socket: net.Socket | undefined): 'http/1.0' | 'http/1.1' | undefined {
  try {
    const parser = parserOf(socket);
    const major = parser?.llhttp.llhttp_get_http_major;
    const minor = parser?.llhttp.llhttp_get_http_minor;
    if (!parser || !major || !minor) return undefined;
    return major(parser.ptr!) === 1 && minor(parser.ptr!) === 0 ? 'http/1.0' : 'http/1.1';
  } catch {
    return undefined;
  }
}

const loadConstants = lazyRequire<{ ERROR: Record<string, number> }>('undici/lib/llhttp/constants.js');
let errorNames: Map<number, string> | undefined;

/** The HPE_* name of the error undici's parser stopped on (read before undici frees the parser on close), or undefined. */
export function parserErrorName(socket: net.Socket | undefined): string | undefined {
  try {
    const parser = parserOf(socket);
    const errno = parser?.llhttp.llhttp_get_errno?.(parser.ptr!);
    if (!errno) return undefined;
    errorNames ??= new Map(Object.entries(loadConstants().ERROR).map(([name, n]) => [n, name]));
    const name = errorNames.get(errno);
    return name ? `HPE_${name}` : undefined;
  } catch {
    return undefined;
  }
}

const loadUndiciPackage = lazyRequire<{ version: string }>('undici/package.json');

/** The installed undici's version, for messages about its internals. */
export function undiciVersion(): string {
  try {
    return loadUndiciPackage().version;
  } catch {
    return 'unknown';
  }
}

/**
 * Why the internals this module reads are not usable on `socket` (an undici HTTP/1.1
 * socket while a response head is parsed), or undefined when they are. For the test
 * that guards undici upgrades; production code uses the readers above, which degrade.
 */
export function undiciParserProblem(socket: net.Socket): string | undefined {
  const prefix = `undici ${undiciVersion()} changed the internals proxy/src/upstream/undici-parser.ts reads`;
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'parser');
  if (!symbol) return `${prefix}: its sockets carry no Symbol(parser) (was lib/core/symbols.js kParser)`;
  const parser = (socket as unknown as Record<symbol, Partial<UndiciParser> | null | undefined>)[symbol];
  if (!parser || typeof parser.ptr !== 'number') return `${prefix}: socket[Symbol(parser)] has no llhttp pointer (ptr)`;
  for (const fn of ['llhttp_get_http_major', 'llhttp_get_http_minor', 'llhttp_get_errno']) {
    if (typeof parser.llhttp?.[fn] !== 'function') return `${prefix}: socket[Symbol(parser)].llhttp.${fn} is missing`;
  }
  try {
    if (typeof loadConstants().ERROR?.INVALID_STATUS !== 'number') return `${prefix}: lib/llhttp/constants.js has no ERROR.INVALID_STATUS`;
  } catch (err) {
    return `${prefix}: lib/llhttp/constants.js cannot be loaded (${(err as Error).message})`;
  }
  return undefined;
}
