/** Empty states and the security of the served UI. */
import { test, expect, snap } from './fixtures';

test('empty states explain what to do', async ({ page, serve }) => {
  await page.goto(serve.url);
  await expect(page.getByTestId('traffic-empty')).toContainText('No requests yet');
  await expect(page.getByTestId('statusbar')).toContainText('connected');
  await snap(page, 'traffic-empty');

  await page.getByTestId('proxy-ca').click();
  await expect(page.getByTestId('ca-panel')).toContainText('netlens-ca.pem');
  await snap(page, 'proxy-ca');
  await page.getByTestId('proxy-ca').click();

  await page.getByTestId('proxy-settings').click();
  await expect(page.getByTestId('settings-panel')).toContainText('HTTP/2');
  await snap(page, 'proxy-settings');
  await page.getByTestId('proxy-settings').click();

  await page.getByTestId('tab-waterfall').click();
  await expect(page.getByTestId('waterfall-empty')).toBeVisible();

  await page.getByTestId('tab-lab').click();
  await expect(page.getByTestId('lab-config')).toBeVisible();
  await expect(page.getByTestId('lab-empty')).toContainText('No lab run yet');
  await snap(page, 'lab-empty');
});

test('the UI refuses requests without the token', async ({ page, serve }) => {
  // The page carries no secret and loads; it says how to get the token, and the API refuses calls without it.
  const bare = serve.url.replace(/\?token=.*/, '');
  const res = await page.goto(bare);
  expect(res!.status()).toBe(200);
  await expect(page.getByTestId('token-required')).toContainText('Token required');
  const api = await page.evaluate(
    async () => (await fetch('/api/getStatus', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' })).status,
  );
  expect(api).toBe(401);
});
