/**
 * The `netlens serve` token as the page holds it. It arrives once in the
 * address (`?token=…`), is moved to sessionStorage (scoped to this
 * scheme+host+port and to this tab) and removed from the address with
 * history.replaceState before anything renders: it is never in history, in a
 * bookmark, in a Referer, or in a cookie (Chromium sends cookies for 127.0.0.1
 * to every port). A reload of the token-less address reads it back from storage.
 */
export const TOKEN_KEY = 'netlens.token';

type Loc = Pick<Location, 'search' | 'pathname' | 'hash'>;
type Hist = Pick<History, 'replaceState' | 'state'>;
type Store = Pick<Storage, 'getItem' | 'setItem'>;

export function takePageToken(loc: Loc, storage: Store | undefined, hist: Hist): string | undefined {
  const params = new URLSearchParams(loc.search);
  const fromUrl = params.get('token');
  if (fromUrl !== null) {
    params.delete('token');
    const rest = params.toString();
    hist.replaceState(hist.state, '', `${loc.pathname}${rest ? `?${rest}` : ''}${loc.hash}`);
    if (fromUrl) {
      try {
        storage?.setItem(TOKEN_KEY, fromUrl);
      } catch {
        // Storage full or disabled: this load still works; a reload asks for the printed URL again.
      }
      return fromUrl;
    }
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
