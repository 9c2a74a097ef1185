/**
 * Runs the bundled main process against the stub and prints one JSON report:
 * IPC round trips (trusted and foreign sender), a request through the proxy
 * reaching the window as an event, the app protocol with its CSP, and quit.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { app, recorded, start } from 'electron';

const main = process.argv[2];
const report = {};
const trusted = { senderFrame: { url: 'netlens://app/index.html', parent: null } };
const foreign = { senderFrame: { url: 'https://example.com/', parent: null } };
const call = (name, args, event = trusted) => recorded.handlers.get(`netlens:cmd:${name}`)(event, args);
const until = async (fn, ms = 15_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${fn}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

await import(main);
report.schemes = recorded.schemes;
{
  // Any web contents main sees gets the lockdown.
  const listeners = new Map();
  let openHandler;
  let devToolsClosed = 0;
  const contents = {
    on: (e, l) => listeners.set(e, l),
    setWindowOpenHandler: (h) => (openHandler = h),
    closeDevTools: () => devToolsClosed++,
  };
  app.emit('web-contents-created', {}, contents);
  let prevented = false;
  listeners.get('will-navigate')({ preventDefault: () => (prevented = true) }, 'https://example.com/');
  report.lockdown = { prevented, newWindow: openHandler({ url: 'https://example.org/' }).action };
  // Packaged builds also swallow DevTools shortcuts and close DevTools that open anyway.
  const keys = {};
  for (const key of ['F12', 'a']) {
    let swallowed = false;
    listeners.get('before-input-event')?.({ preventDefault: () => (swallowed = true) }, { type: 'keyDown', key });
    keys[key] = swallowed;
  }
  listeners.get('devtools-opened')?.();
  report.devTools = { listeners: [...listeners.keys()].sort(), keys, closed: devToolsClosed };
  await new Promise((r) => setTimeout(r, 10));
  report.lockdown.opened = [...recorded.opened];
}
start();
const status = await until(async () => {
  if (!recorded.handlers.has('netlens:cmd:getStatus')) return undefined;
  const r = await call('getStatus');
  return r?.ok && r.result.proxy.running ? r.result : undefined;
});
report.handlers = [...recorded.handlers.keys()].sort();
report.window = { url: recorded.windows[0].url, webPreferences: recorded.windows[0].options.webPreferences };
report.foreign = await call('listExchanges', undefined, foreign);
report.notFound = await call('getExchange', { id: 'nope' });

const origin = http.createServer((_req, res) => res.end('hello'));
await new Promise((r) => origin.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${origin.address().port}/hello.txt`;
const proxy = new URL(status.proxy.address.url);
report.proxied = await new Promise((resolve, reject) => {
  http
    .get(
      { host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } },
      (res) => (res.resume(), res.on('end', () => resolve(res.statusCode))),
    )
    .on('error', reject);
});
report.event = await until(
  () =>
    recorded.sent.find(
      ([ch, e]) => ch === 'netlens:event' && e.type === 'exchanges' && e.items.some((i) => i.url === target && i.state === 'complete'),
    )?.[0],
);

// A breakpoint pauses a request; closing the window (main stays subscribed) continues it unchanged.
await call('setRules', { rules: [{ id: 'bp', match: { path: '/paused' }, actions: [{ type: 'breakpoint', on: 'request' }] }] });
const pausedUrl = `http://127.0.0.1:${origin.address().port}/paused`;
const pausedReply = new Promise((resolve, reject) => {
  http
    .get({ host: proxy.hostname, port: proxy.port, path: pausedUrl, headers: { host: new URL(pausedUrl).host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    })
    .on('error', reject);
});
const pausedBefore = await until(async () => {
  const r = await call('listBreakpoints');
  return r.ok && r.result.length === 1 ? r.result.length : undefined;
});
recorded.windows[0].emit('closed');
report.breakpointOnClose = {
  pausedBefore,
  status: await pausedReply,
  pausedAfter: (await call('listBreakpoints')).result.length,
};
await call('setRules', { rules: [] });
origin.close();

const page = await recorded.protocolHandler({ url: 'netlens://app/index.html' });
report.page = {
  status: page.status,
  csp: page.headers.get('content-security-policy'),
  type: page.headers.get('content-type'),
  hasRoot: (await page.text()).includes('id="root"'),
};
report.escape = (await recorded.protocolHandler({ url: 'netlens://app/..%2f..%2fpackage.json' })).status;
report.menu = recorded.menus.at(-1).map((m) => m.label ?? m.role);
report.viewMenu = recorded.menus
  .at(-1)
  .find((m) => m.label === 'View')
  .submenu.map((i) => i.role ?? i.type);
report.proxyMenu = recorded.menus.at(-1).find((m) => m.label === 'Proxy').submenu[0].label;
report.clipboard = [
  recorded.permissionCheck(null, 'clipboard-sanitized-write', 'netlens://app'),
  recorded.permissionCheck(null, 'media', 'netlens://app'),
];

app.quit();
await until(() => recorded.quitted);
const sessionsDir = path.join(process.env.NETLENS_DATA_DIR, 'sessions');
report.savedAtQuit = fs.readdirSync(sessionsDir).filter((f) => f.endsWith('.har')).length;
report.handlersAfterQuit = recorded.handlers.size;
report.proxyAfterQuit = await new Promise((resolve) => {
  const req = http.get({ host: proxy.hostname, port: proxy.port, path: target }, () => resolve('still listening'));
  req.on('error', (err) => resolve(err.code));
});
report.settings = JSON.parse(
  fs.readFileSync(path.join(process.env.NETLENS_USER_DATA_DIR ?? process.env.STUB_USER_DATA, 'settings.json'), 'utf8'),
);
console.log(JSON.stringify(report));
process.exit(0);
