/** Browser launch and browser-side HAR capture. */
export { findChrome } from './find-chrome.js';
export type { FindChromeOptions } from './find-chrome.js';
export { chromeArgs } from './flags.js';
export type { ChromeFlagOptions } from './flags.js';
export { launchBrowser } from './launch.js';
export type { BrowserHandle, LaunchBrowserOptions } from './launch.js';
export { capturePage } from './capture.js';
export type { CaptureOptions, PageCapture } from './capture.js';
