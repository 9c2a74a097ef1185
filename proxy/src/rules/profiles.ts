/**
 * Named network profiles for the throttle action. Figures are those of the
 * presets users compare against, so a "slow-4g" here means what it means there:
 *
 * - Chrome DevTools (front_end/core/sdk/NetworkManager.ts, Chrome 130+ names): "Slow 4G" (formerly
 *   "Fast 3G") = 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up, 150 ms × 3.75 = 562.5 ms latency;
 *   "Fast 4G" = 9 Mbit/s × 0.9 down, 1.5 Mbit/s × 0.9 up, 60 ms × 2.75 = 165 ms; "3G" (formerly
 *   "Slow 3G") = 500 kbit/s × 0.8 both ways, 400 ms × 5 = 2000 ms. DevTools uses 1 kbit = 1000 bit.
 * - Lighthouse (core/config/constants.js, `throttling`): mobileSlow4G = 1.6 × 1024 kbit/s × 0.9 down,
 *   750 × 0.9 kbit/s up, 562.5 ms request latency (the devtools-throttling figures); mobileRegular3G =
 *   700 × 0.9 kbit/s both ways, 300 ms × 3.75 = 1125 ms.
 *
 * The 0.9/0.8 factors and latency multipliers are those tools' own adjustments (packet-level vs
 * request-level throttling), kept as they are. Latency is added once per request, before the response.
 */
export interface NetworkProfile {
  title: string;
  /** Bytes per second; 0 = unlimited. */
  downloadBps: number;
  uploadBps: number;
  latencyMs: number;
  source: string;
}

const kbit = (k: number) => (k * 1000) / 8;

export const PROFILES: Record<string, NetworkProfile> = {
  'slow-4g': {
    title: 'Slow 4G (DevTools)',
    downloadBps: kbit(1600) * 0.9,
    uploadBps: kbit(750) * 0.9,
    latencyMs: 562.5,
    source: 'Chrome DevTools',
  },
  'fast-4g': {
    title: 'Fast 4G (DevTools)',
    downloadBps: kbit(9000) * 0.9,
    uploadBps: kbit(1500) * 0.9,
    latencyMs: 165,
    source: 'Chrome DevTools',
  },
  '3g': {
    title: '3G (DevTools, formerly Slow 3G)',
    downloadBps: kbit(500) * 0.8,
    uploadBps: kbit(500) * 0.8,
    latencyMs: 2000,
    source: 'Chrome DevTools',
  },
  'lighthouse-mobile-slow-4g': {
    title: 'Lighthouse mobile (slow 4G)',
    downloadBps: ((1.6 * 1024 * 1024) / 8) * 0.9,
    uploadBps: ((750 * 1024) / 8) * 0.9,
    latencyMs: 562.5,
    source: 'Lighthouse',
  },
  'lighthouse-mobile-3g': {
    title: 'Lighthouse mobile regular 3G',
    downloadBps: ((700 * 1024) / 8) * 0.9,
    uploadBps: ((700 * 1024) / 8) * 0.9,
    latencyMs: 1125,
    source: 'Lighthouse',
  },
  /** Exactly 1.6 Mbit/s both ways, no latency: a round figure for tests and docs. */
  '1.6mbps': { title: '1.6 Mbit/s, no added latency', downloadBps: kbit(1600), uploadBps: kbit(1600), latencyMs: 0, source: 'Netlens' },
};
