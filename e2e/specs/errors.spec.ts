// A malformed scenario shows a located error while the app keeps working; a bad scenario or a
// cancelled run leaves the previous run whole in the worker (windows beyond what was fetched,
// the cursor's runqueue and pick, the metrics); the page makes no request outside its origin.
// Every spec here also fails on any page or console error (fixtures/test.ts).
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { appState, chooseScenario, openApp, slicesDrawn, waitForIdle } from '../fixtures/app';

/** Sets the cursor by clicking the middle of the first timeline block, and checks that the
 * inspector answers for it: a pick at or before the cursor, inside the visible window. */
async function cursorAnswers(page: Page) {
  const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.6, box.y + 20);
  await waitForIdle(page);
  const s = await appState(page);
  expect(s.cursor_ns).toBeGreaterThan(s.window_ns[0]);
  const pick = page.locator('[data-testid="why-pick"]').first();
  await expect(pick).toBeVisible();
  const t = Number(await pick.getAttribute('data-t'));
  expect(t).toBeLessThanOrEqual(s.cursor_ns);
  // The latest pick is recent: the default scenario picks at least every tick (4 ms).
  expect(s.cursor_ns - t).toBeLessThan(8e6);
}

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

test('a bad scenario after a good one: the previous run stays whole (pan far, move the cursor)', async ({ page }) => {
  await openApp(page);
  const before = await appState(page);
  const editor = page.getByLabel('scenario text');
  await editor.fill((await editor.inputValue()).replace('[host]', '[host]\nbogus = 1'));
  await page.getByRole('button', { name: 'Run' }).click();
  await waitForIdle(page);
  await expect(page.locator('[data-testid="scenario-error"]')).toContainText(/:\d+:\d+: /);
  expect((await appState(page)).scenario).toBe(before.scenario);
  // Pan two windows to the right: far past the half window fetched beyond each side, so the
  // worker must answer from the previous run's handles.
  for (let i = 0; i < 10; i++) await page.keyboard.press('d');
  await waitForIdle(page);
  const s = await appState(page);
  expect(s.window_ns[0]).toBeGreaterThan(before.window_ns[1] + (before.window_ns[1] - before.window_ns[0]) / 2);
  expect((await slicesDrawn(page))[0]).toBeGreaterThan(0);
  await cursorAnswers(page);
  await expect(page.locator('[data-testid="metrics-table"]')).toContainText('hog');
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).simHandles).toBe(1);
});

test('cancel mid-run: the previous run stays whole (cursor, metrics)', async ({ page }) => {
  await openApp(page);
  const before = await appState(page);
  // A dense scenario long enough to be cancelled while it runs.
  const dense = readFileSync(new URL('../fixtures/bench-dense.toml', import.meta.url), 'utf8').replace('duration = "1s"', 'duration = "30s"');
  await page.setInputFiles('[data-testid="file-input"]', { name: 'dense.toml', mimeType: 'text/plain', buffer: Buffer.from(dense) });
  const progress = page.locator('span.progress[role="progressbar"]');
  await expect(progress).toBeVisible();
  await progress.getByRole('button', { name: 'cancel' }).click();
  await waitForIdle(page);
  await expect(progress).toHaveCount(0);
  await expect(page.locator('[data-testid="scenario-error"]')).toHaveCount(0);
  const after = await appState(page);
  expect(after.scenario).toBe(before.scenario);
  expect(after.window_ns).toEqual(before.window_ns);
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).simHandles).toBe(1);
  await cursorAnswers(page);
  // The metrics of the previous run: its tasks and a wakeup-latency histogram with bars.
  await expect(page.locator('[data-testid="metrics-table"]')).toContainText('hog');
  expect(await page.locator('[data-testid="latency-chart"] rect').count()).toBeGreaterThan(0);
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
