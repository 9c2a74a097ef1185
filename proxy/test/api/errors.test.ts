import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, NetlensError, errorCodeOf, isErrorCode, isErrorInfo, toErrorInfo } from '../../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) out.push(full);
  }
  return out;
}

describe('the error code registry', () => {
  it('registers every NL_ code written in proxy/src, electron and renderer/src', () => {
    const files = ['proxy/src', 'electron', 'renderer/src'].flatMap((d) => sourceFiles(path.join(root, d)));
    expect(files.length).toBeGreaterThan(50);
    const unregistered: string[] = [];
    let seen = 0;
    for (const file of files) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bNL_[A-Z0-9_]+\b/g)) {
        seen++;
        if (!isErrorCode(m[0])) unregistered.push(`${path.relative(root, file)}: ${m[0]}`);
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(unregistered).toEqual([]);
  });

  it('holds the codes once found in use but missing', () => {
    const once = ['NL_CLIENT_TLS', 'NL_H2_DOWNGRADE', 'NL_H2_REFUSED_STREAM', 'NL_API_UNREACHABLE', 'NL_API_BAD_RESPONSE'];
    once.push('NL_REQUEST_NOT_SENDABLE', 'NL_LISTENER_FAILED', 'NL_LAB_CHILD_KILLED');
    for (const code of once) {
      expect(isErrorCode(code), code).toBe(true);
    }
  });

  it('has no code twice', () => {
    const codes = Object.values(ErrorCodes);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('isErrorCode / isErrorInfo', () => {
  it('accepts registered codes only', () => {
    expect(isErrorCode('NL_NOT_FOUND')).toBe(true);
    expect(isErrorCode('NL_NO_SUCH_THING')).toBe(false);
    expect(isErrorCode('ECONNRESET')).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });

  it('recognises a plain { code, message } with a registered code', () => {
    expect(isErrorInfo({ code: 'NL_NOT_FOUND', message: 'gone' })).toBe(true);
    expect(isErrorInfo({ code: 'NL_MADE_UP', message: 'gone' })).toBe(false);
    expect(isErrorInfo({ code: 'NL_NOT_FOUND' })).toBe(false);
    expect(isErrorInfo(null)).toBe(false);
    expect(isErrorInfo('NL_NOT_FOUND')).toBe(false);
  });
});

describe('errorCodeOf / toErrorInfo', () => {
  it('keeps a NetlensError code and message', () => {
    const err = new NetlensError(ErrorCodes.SESSION_STORE, 'The session index cannot be read.');
    expect(errorCodeOf(err)).toBe('NL_SESSION_STORE');
    expect(toErrorInfo(err)).toEqual({ code: 'NL_SESSION_STORE', message: 'The session index cannot be read.' });
  });

  it('keeps a registered code tagged on a plain error (lower layers, other processes)', () => {
    expect(errorCodeOf(Object.assign(new Error('slow'), { code: ErrorCodes.UPSTREAM_TIMEOUT }))).toBe('NL_UPSTREAM_TIMEOUT');
    expect(errorCodeOf({ code: 'NL_LAB_ABORTED', message: 'cancelled' })).toBe('NL_LAB_ABORTED');
  });

  it('maps unregistered and foreign codes to NL_INTERNAL, or to the fallback given', () => {
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'NL_NOT_REGISTERED' }))).toBe('NL_INTERNAL');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'EADDRINUSE' }))).toBe('NL_INTERNAL');
    expect(errorCodeOf(new Error('x'), ErrorCodes.LISTEN_FAILED)).toBe('NL_LISTEN_FAILED');
    expect(errorCodeOf(undefined)).toBe('NL_INTERNAL');
  });

  it('tells a plain Error by its message only, never its stack', () => {
    const info = toErrorInfo(new Error('disk gone'));
    expect(info).toEqual({ code: 'NL_INTERNAL', message: 'disk gone' });
    expect(JSON.stringify(info)).not.toMatch(/at .*\.ts/);
  });

  it('says something for values that are not errors', () => {
    expect(toErrorInfo('boom')).toEqual({ code: 'NL_INTERNAL', message: 'boom' });
    expect(toErrorInfo(null)).toEqual({ code: 'NL_INTERNAL', message: 'null' });
    expect(toErrorInfo(new Error(''))).toEqual({ code: 'NL_INTERNAL', message: 'Error' });
  });
});
