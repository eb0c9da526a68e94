// A malformed scenario shows a located error while the app keeps working; the page makes no
// request outside its own origin.
import { expect, test } from '@playwright/test';
import { appState, chooseScenario, openApp, waitForIdle } from '../fixtures/app';

test('malformed scenario: message at line and column, app still works', async ({ page }) => {
  await openApp(page);
  const editor = page.getByLabel('scenario text');
  const text = await editor.inputValue();
  await editor.fill(text.replace('duration = "200ms"', 'duration = "2oo ms"'));
  await page.getByRole('button', { name: 'Run' }).click();
  const err = page.locator('[data-testid="scenario-error"]');
  await expect(err).toContainText(/:\d+:\d+: /);
  await expect(err).toContainText('duration');
  // The previous simulation stays on screen and navigation still works.
  await expect(page.locator('[data-testid="timeline-block"] canvas')).toHaveCount(1);
  const w = (await appState(page)).window_ns;
  await page.keyboard.press('d');
  await waitForIdle(page);
  expect((await appState(page)).window_ns[0]).toBeGreaterThan(w[0]);
  await chooseScenario(page, 'gallery/nice-ladder');
  await expect(err).toHaveCount(0);
  await page.screenshot({ path: 'artifacts/after-error.png' });
});

test('names from files are rendered as text', async ({ page }) => {
  await openApp(page);
  const editor = page.getByLabel('scenario text');
  const text = await editor.inputValue();
  await editor.fill(text.replace('name = "hog"', 'name = "<img src=x onerror=alert(1)>"'));
  await page.getByRole('button', { name: 'Run' }).click();
  await waitForIdle(page);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="metrics-table"]')).toContainText('<img src=x onerror=alert(1)>');
});

test('no request leaves the page origin', async ({ page }) => {
  const foreign: string[] = [];
  const origin = new URL(test.info().project.use.baseURL!).host;
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.host !== origin && !u.protocol.startsWith('data') && !u.protocol.startsWith('blob')) foreign.push(r.url());
  });
  await openApp(page);
  await chooseScenario(page, 'gallery/nice-ladder');
  expect(foreign).toEqual([]);
});
