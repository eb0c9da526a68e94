// SMP in the simulated view: migration arrows between the CPU lanes (wakeup placements and
// load-balance moves styled apart), each CPU's PELT load/util and nr_running track, and the
// inspector's "why this CPU" with the numbers, reachable with the keyboard.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { chooseScenario, openApp, waitForIdle } from '../fixtures/app';

const canvas = (page: Page) => page.locator('[data-testid="timeline-block"] canvas').first();
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');

test('spread-unpinned: migration arrows, PELT tracks and why this CPU', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'gallery/spread-unpinned');
  await waitForIdle(page);
  // The first 40 ms: the exec balancing of the tasks' first runs and a periodic balance move
  // are drawn as arrows; zoomed out to the whole run, there are more of them.
  const arrows = await attr(page, 'data-migration-arrows');
  expect(arrows).toBeGreaterThan(0);
  expect(await attr(page, 'data-migration-balance')).toBeGreaterThan(0);
  expect((await attr(page, 'data-migration-wake')) + (await attr(page, 'data-migration-balance'))).toBeLessThan(arrows);
  await page.keyboard.press('s');
  await waitForIdle(page);
  await page.keyboard.press('s');
  await waitForIdle(page);
  expect(await attr(page, 'data-migration-arrows')).toBeGreaterThan(arrows);
  await page.keyboard.press('w');
  await waitForIdle(page);
  await page.keyboard.press('w');
  await waitForIdle(page);
  // One PELT track per CPU, with lines in them.
  expect(await attr(page, 'data-cpu-tracks')).toBe(4);
  expect(await attr(page, 'data-cpu-track-points')).toBeGreaterThan(10);

  // Put the cursor at 40 ms (clicking the first CPU lane) and read why each CPU got its task.
  const box = (await canvas(page).boundingBox())!;
  await page.mouse.click(box.x + 110 + (box.width - 110) * 0.4, box.y + 11);
  await waitForIdle(page);
  const why = page.locator('[data-testid="why-cpu"]').first();
  await expect(why).toBeVisible();
  await expect(why.locator('[data-testid="why-cpu-entry"]').first()).toContainText(/select_task_rq placed \S+ on CPU \d|sched_balance_rq on CPU \d|moved from CPU \d to CPU \d/);
  // The numbers: a balance pass states its imbalance, a placement its CPUs.
  await expect(page.locator('[data-testid="inspector"]')).toContainText(/on CPU \d/);
  // Keyboard: the summary takes the focus and Enter folds the explanation away and back.
  const summary = why.locator('summary');
  await summary.focus();
  await expect(summary).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(why).not.toHaveAttribute('open', '');
  await page.keyboard.press('Enter');
  await expect(why).toHaveAttribute('open', '');
  // Space presses the summary too, and does not start playback.
  const cursor = (await page.evaluate(() => window.__schedlab!.state())).cursor_ns;
  await page.keyboard.press(' ');
  await expect(why).not.toHaveAttribute('open', '');
  await page.keyboard.press(' ');
  await expect(why).toHaveAttribute('open', '');
  await waitForIdle(page);
  expect((await page.evaluate(() => window.__schedlab!.state())).cursor_ns).toBe(cursor);
  await expect(page.getByRole('button', { name: 'play', exact: true })).toBeVisible();
  await page.screenshot({ path: 'artifacts/smp-why-cpu.png' });
});

test('a pinned scenario has no PELT tracks and no migration arrows', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/ipi-pipeline');
  await waitForIdle(page);
  expect(await attr(page, 'data-cpu-tracks')).toBe(0);
  expect(await attr(page, 'data-migration-arrows')).toBe(0);
});
