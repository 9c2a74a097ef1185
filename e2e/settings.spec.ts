/**
 * Settings does what the errors tell users to do (issue 15 item 9): an HTTPS origin signed by a
 * private CA fails through the proxy until its CA file is added in Settings, the body capture limit
 * applies, insecure shows a warning in the proxy bar, and the CA dialog copies and downloads.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test, expect, snap } from './fixtures';

/** An HTTPS origin on 127.0.0.1 whose certificate a throwaway "staging" CA signed (made by openssl, as a user's would be). */
async function privateOrigin(dir: string) {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'staging-ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Staging Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'staging-ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '2',
    '-extfile',
    'leaf.ext',
  );
  const caFile = path.join(dir, 'staging-ca.pem');
  const body = 'x'.repeat(5000);
  const tlsFiles = { cert: fs.readFileSync(path.join(dir, 'leaf.pem')), key: fs.readFileSync(path.join(dir, 'leaf.key')) };
  const server = https.createServer(tlsFiles, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/staging.txt`;
  return { url, caFile, body, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** curl through the proxy, trusting the Netlens CA: the status (0 when curl got no HTTP answer). */
function curl(proxyUrl: string, netlensCA: string, url: string): Promise<{ status: number; size: number; error: string }> {
  return new Promise((resolve) => {
    execFile(
      'curl',
      [
        '-s',
        '-S',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_download}',
        '--max-time',
        '20',
        '-x',
        proxyUrl,
        '--cacert',
        netlensCA,
        url,
      ],
      { timeout: 30_000 },
      (err, stdout, stderr) => {
        const [status, size] = stdout.trim().split(' ').map(Number);
        resolve({ status: status || 0, size: size || 0, error: err ? stderr.trim() : '' });
      },
    );
  });
}

async function proxyUrlShown(page: import('@playwright/test').Page): Promise<string> {
  const text = await page.getByTestId('proxy-status').innerText();
  const m = /(127\.0\.0\.1:\d+)/.exec(text);
  expect(m, `proxy address in "${text}"`).not.toBeNull();
  return `http://${m![1]}`;
}

test('Settings: upstream CA file and body limit applied, insecure warned, bad values refused', async ({ page, serve }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-staging-'));
  const origin = await privateOrigin(dir);
  try {
    await page.goto(serve.url);
    await expect(page.getByTestId('proxy-status')).toContainText('Proxy');
    const certPath = findFile(serve.dataDir, 'netlens-ca.pem');

    // Before: the proxy does not trust the staging CA, so the request fails.
    const before = await curl(await proxyUrlShown(page), certPath, origin.url);
    expect(before.status, before.error).not.toBe(200);

    // A CA file that does not exist is refused with the reason; nothing changes.
    await page.getByTestId('proxy-settings').click();
    await page.getByTestId('opt-upstream-ca').fill(path.join(dir, 'missing.pem'));
    await page.getByTestId('settings-apply').click();
    await expect(page.getByText(/NL_UPSTREAM_CA_FILE|does not exist/).first()).toBeVisible();
    // A body limit out of range too.
    await page.getByTestId('opt-upstream-ca').fill(origin.caFile);
    await page.getByTestId('opt-body-limit').fill('999999');
    await expect(page.getByTestId('body-limit-hint')).toContainText('0–65536 KiB');
    await page.getByTestId('settings-apply').click();
    await expect(page.getByText(/bodyCaptureLimit/).first()).toBeVisible();

    // Good values: the CA file and a 1 KiB body limit.
    await page.getByTestId('opt-body-limit').fill('1');
    await expect(page.getByTestId('body-limit-hint')).toHaveCount(0);
    await snap(page, 'settings-panel');
    await page.getByTestId('settings-apply').click();
    await expect(page.getByText('Proxy restarted with the new settings').first()).toBeVisible();
    await expect(page.getByTestId('settings-panel')).toHaveCount(0);

    const after = await curl(await proxyUrlShown(page), certPath, origin.url);
    expect(after, after.error).toMatchObject({ status: 200, size: origin.body.length });
    // The capture spans the restart: the request that failed before it keeps its row next to the new one.
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'staging.txt' })).toHaveCount(2);
    await expect(page.getByTestId('traffic-row').filter({ hasText: 'staging.txt' }).filter({ hasText: '502' })).toHaveCount(1);
    const row = page.getByTestId('traffic-row').filter({ hasText: 'staging.txt' }).filter({ hasText: '200' });
    await expect(row).toHaveCount(1);
    await row.click();
    await page.getByTestId('details-tab-response').click();
    await expect(page.getByText('Only the first part of this body was recorded (capture limit)')).toBeVisible();

    // Reopened, Settings shows what the core applied.
    await page.getByTestId('proxy-settings').click();
    await expect(page.getByTestId('opt-upstream-ca')).toHaveValue(origin.caFile);
    await expect(page.getByTestId('opt-body-limit')).toHaveValue('1');

    // Insecure: a warning in the panel, then in the proxy bar while it is on.
    await expect(page.getByTestId('insecure-warning')).toHaveCount(0);
    await page.getByTestId('opt-insecureUpstream').check();
    await expect(page.getByTestId('settings-panel')).toContainText('Any server can then pose as any site');
    await page.getByTestId('settings-apply').click();
    await expect(page.getByTestId('insecure-warning')).toContainText('Not verifying upstream certificates');
    await snap(page, 'settings-insecure-warning');
    await page.getByTestId('proxy-settings').click();
    await page.getByTestId('opt-insecureUpstream').uncheck();
    await page.getByTestId('settings-apply').click();
    await expect(page.getByTestId('insecure-warning')).toHaveCount(0);
  } finally {
    await origin.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CA dialog: commands on one line each, Copy and Download (certificate only)', async ({ page, context, serve }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(serve.url);
  await page.getByTestId('proxy-ca').click();
  const panel = page.getByTestId('ca-panel');
  await expect(panel).toContainText('netlens-ca.pem');

  const commands = panel.getByTestId('ca-command');
  expect(await commands.count()).toBeGreaterThanOrEqual(3);
  // No command wraps: each is one line high (long ones scroll sideways).
  const boxes = await commands.evaluateAll((els) =>
    els.map((e) => ({ ws: getComputedStyle(e).whiteSpace, h: e.clientHeight, lh: parseFloat(getComputedStyle(e).lineHeight) || 16 })),
  );
  for (const box of boxes) {
    expect(box.ws).toBe('pre');
    expect(box.h).toBeLessThan(box.lh * 2 + 10);
  }
  await snap(page, 'ca-dialog');

  await panel.getByTestId('ca-copy').first().click();
  await expect(page.getByText('Copied to the clipboard').first()).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^curl -x http:\/\/127\.0\.0\.1:\d+ --cacert ".+netlens-ca\.pem" https:\/\/example\.com\/$/);

  const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('ca-download').click()]);
  expect(download.suggestedFilename()).toBe('netlens-ca.pem');
  const file = await download.path();
  const pem = fs.readFileSync(file!, 'utf8');
  expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  expect(pem).not.toMatch(/PRIVATE KEY/);
  expect(pem.trim()).toBe(fs.readFileSync(findFile(serve.dataDir, 'netlens-ca.pem'), 'utf8').trim());
});

function findFile(dir: string, name: string): string {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      try {
        return findFile(p, name);
      } catch {
        // not under this one
      }
    }
  }
  throw new Error(`${name} not found under ${dir}`);
}
