// Perfetto-style navigation, the inspector, playback and the help overlay.
import { expect, test } from '../fixtures/test';
import { appState, openApp, waitForIdle } from '../fixtures/app';

const width = (s: { window_ns: [number, number] }) => s.window_ns[1] - s.window_ns[0];

test('W/S zoom, A/D pan, wheel and drag', async ({ page }) => {
  await openApp(page);
  const s0 = await appState(page);
  await page.keyboard.press('w');
  await waitForIdle(page);
  const s1 = await appState(page);
  expect(width(s1)).toBeLessThan(width(s0));
  await page.keyboard.press('s');
  await page.keyboard.press('s');
  await waitForIdle(page);
  expect(width(await appState(page))).toBeGreaterThan(width(s1));
  const before = await appState(page);
  await page.keyboard.press('d');
  await waitForIdle(page);
  const after = await appState(page);
  expect(after.window_ns[0]).toBeGreaterThan(before.window_ns[0]);
  await page.keyboard.press('a');
  await waitForIdle(page);
  expect((await appState(page)).window_ns[0]).toBeLessThan(after.window_ns[0]);

  const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
  const box = (await canvas.boundingBox())!;
  const w0 = width(await appState(page));
  await page.mouse.move(box.x + box.width / 2, box.y + 20);
  await page.mouse.wheel(0, -400);
  await waitForIdle(page);
  expect(width(await appState(page))).toBeLessThan(w0);
  const p0 = (await appState(page)).window_ns[0];
  await page.mouse.move(box.x + box.width / 2, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 200, box.y + 20, { steps: 5 });
  await page.mouse.up();
  await waitForIdle(page);
  expect((await appState(page)).window_ns[0]).toBeGreaterThan(p0);
});

test('click sets the cursor and selects; the inspector explains the pick', async ({ page }) => {
  await openApp(page);
  const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
  const box = (await canvas.boundingBox())!;
  // The first CPU lane sits just below the block label; click inside a running slice.
  await page.mouse.click(box.x + box.width * 0.6, box.y + 30);
  await waitForIdle(page);
  const s = await appState(page);
  expect(s.cursor_ns).toBeGreaterThan(s.window_ns[0]);
  await expect(page.locator('[data-testid="why-pick"]').first()).toContainText(
    /On the root cfs_rq: \S+ (was the only entity queued here|had the earliest virtual deadline|kept the CPU|was picked as the next buddy)/,
  );
  await expect(page.locator('[data-testid="inspector"]')).toContainText('runqueue');
  if (s.selection !== null) await expect(page.locator('[data-testid="entity-fields"]').first()).toContainText('vruntime');
  await page.screenshot({ path: 'artifacts/inspector.png' });
});

test('playback moves the cursor; next-event steps; ? shows help', async ({ page }) => {
  await openApp(page);
  const c0 = (await appState(page)).cursor_ns;
  await page.getByRole('button', { name: 'next event' }).click();
  await waitForIdle(page);
  const c1 = (await appState(page)).cursor_ns;
  expect(c1).toBeGreaterThan(c0);
  await page.getByRole('button', { name: 'play' }).click();
  await page.waitForTimeout(400);
  await page.getByRole('button', { name: 'pause' }).click();
  await waitForIdle(page);
  expect((await appState(page)).cursor_ns).toBeGreaterThan(c1);
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'keyboard help' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'keyboard help' })).toHaveCount(0);
});
