import { describe, expect, it } from 'vitest';
import { TOKEN_KEY, takePageToken } from './page-token';

function fakes(search: string, stored?: string) {
  const data = new Map<string, string>(stored ? [[TOKEN_KEY, stored]] : []);
  const storage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
  const replaced: string[] = [];
  const hist = {
    state: { keep: 1 },
    replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)),
  };
  return { loc: { search, pathname: '/', hash: '#x' }, storage, hist, data, replaced };
}

describe('the page token', () => {
  it('is taken from ?token= once, stored for this tab, and removed from the address', () => {
    const f = fakes('?token=abc&view=lab');
    expect(takePageToken(f.loc, f.storage, f.hist)).toBe('abc');
    expect(f.data.get(TOKEN_KEY)).toBe('abc');
    expect(f.replaced).toEqual(['/?view=lab#x']);
  });

  it('is read back from storage on a reload of the token-less address; the address is left alone', () => {
    const f = fakes('', 'abc');
    expect(takePageToken(f.loc, f.storage, f.hist)).toBe('abc');
    expect(f.replaced).toEqual([]);
  });

  it('a new token in the address replaces a stale stored one; an empty one is removed but not stored', () => {
    const f = fakes('?token=new', 'old');
    expect(takePageToken(f.loc, f.storage, f.hist)).toBe('new');
    expect(f.data.get(TOKEN_KEY)).toBe('new');
    const g = fakes('?token=');
    expect(takePageToken(g.loc, g.storage, g.hist)).toBeUndefined();
    expect(g.replaced).toEqual(['/#x']);
  });

  it('works without storage (disabled by the browser) and with a storage that throws', () => {
    const f = fakes('?token=abc');
    expect(takePageToken(f.loc, undefined, f.hist)).toBe('abc');
    const throwing = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    expect(takePageToken(f.loc, throwing, f.hist)).toBe('abc');
    expect(takePageToken({ search: '', pathname: '/', hash: '' }, throwing, f.hist)).toBeUndefined();
  });
});
