/**
 * The request headers headless Chromium 156 sends for an <img> on the lab's page
 * (copied from a lab run's proxy-side HAR). A load generator that sends only
 * `:path` hides what a browser's 14 extra headers cost a proxy per request
 * (HPACK decode, header objects, copying them upstream): with these headers the
 * h2 burst through Netlens costs measurably more than without.
 */
export function browserImageHeaders(origin: URL): Record<string, string> {
  return {
    pragma: 'no-cache',
    'cache-control': 'no-cache',
    'sec-ch-ua-platform': '"Linux"',
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
    'sec-ch-ua': '"Not:A-Brand";v="8", "Chromium";v="156"',
    'sec-ch-ua-mobile': '?0',
    accept: 'image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
    'sec-fetch-site': 'same-origin',
    'sec-fetch-mode': 'no-cors',
    'sec-fetch-dest': 'image',
    referer: origin.origin + '/',
    'accept-encoding': 'gzip, deflate, br, zstd',
    'accept-language': 'en-US,en;q=0.9',
    priority: 'i',
  };
}
