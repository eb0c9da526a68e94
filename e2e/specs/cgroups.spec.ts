// cgroups and CFS bandwidth: the cgroup tree panel, group-entity lanes, throttled strips on
// the CPU lanes and the runtime_remaining counter track.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { chooseScenario, openApp, waitForIdle } from '../fixtures/app';

const canvas = (page: Page) => page.locator('[data-testid="timeline-block"] canvas').first();
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');

test('bandwidth: cgroup tree lists /sl_Q with its quota; throttled strips and counter track drawn', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'linux-6.18/bandwidth-30-of-100');
  // The first throttle is at about 80 ms: zoom out from the first 40 ms to about 150 ms.
  for (let i = 0; i < 6; i++) await page.keyboard.press('s');
  await waitForIdle(page);
  // Room for the timeline: the editor and the metrics closed, the cgroup tree opened.
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  await page.getByRole('button', { name: 'cgroups' }).click();
  await waitForIdle(page);

  const tree = page.getByTestId('cgroup-tree');
  await expect(tree).toBeVisible();
  const q = tree.locator('[data-testid="cgroup"][data-path="/sl_Q"]');
  await expect(q).toContainText('/sl_Q');
  await expect(q.getByTestId('cgroup-quota')).toContainText('quota 30.000 ms / 100.000 ms');
  await expect(q).toContainText('k_a');
  await expect(q).toContainText('k_b');

  expect(await attr(page, 'data-counter-tracks')).toBe(1);
  expect(await attr(page, 'data-throttle-strips')).toBeGreaterThan(0);
  expect(await attr(page, 'data-group-lanes')).toBe(1);
  // The cgroup tree is not a share-link panel.
  expect((await page.evaluate(() => window.__schedlab!.state())).panels).not.toContain('cgroups');
  await page.screenshot({ path: 'artifacts/cgroups-bandwidth.png' });

  // At a cursor inside the first throttled interval (80–100 ms), the tree says so.
  const box = (await canvas(page).boundingBox())!;
  const [t0, t1] = (await page.evaluate(() => window.__schedlab!.state())).window_ns;
  const x = 110 + ((90e6 - t0) / (t1 - t0)) * (box.width - 110);
  await page.mouse.click(box.x + x, box.y + 5);
  await waitForIdle(page);
  await expect(q.getByTestId('cgroup-cpu').filter({ hasText: 'throttled' })).toHaveCount(1);
  await page.screenshot({ path: 'artifacts/cgroups-bandwidth-throttled.png' });
  const now = (await canvas(page).boundingBox())!;
  await page.screenshot({ path: 'artifacts/cgroups-bandwidth-cpu-lanes.png', clip: { x: now.x, y: now.y, width: now.width, height: 2 * 22 + 44 } });
});

test('cgroup shares: two group lanes; the why text names a group cfs_rq', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'linux-6.18/cgroup-shares');
  expect(await attr(page, 'data-group-lanes')).toBe(2);
  expect(await attr(page, 'data-lanes')).toBe(2 + 2 + 3);

  // Move the cursor to about 35 ms (after every task started) with a click on CPU 1.
  const box = (await canvas(page).boundingBox())!;
  const [t0, t1] = (await page.evaluate(() => window.__schedlab!.state())).window_ns;
  const x = 110 + ((35e6 - t0) / (t1 - t0)) * (box.width - 110);
  await page.mouse.click(box.x + x, box.y + 22 + 11);
  await waitForIdle(page);
  await expect(page.getByTestId('why-pick').first()).toContainText(/the cfs_rq of \/sl_[AB]/);

  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'cgroups' }).click();
  await waitForIdle(page);
  await expect(page.getByTestId('cgroup-tree').locator('[data-path="/sl_A"]')).toContainText('shares 2048');
  await page.screenshot({ path: 'artifacts/cgroups-shares.png' });

  // A click on a group lane's name collapses it: its task lane goes away.
  const lanesBefore = await attr(page, 'data-lanes');
  const groupTop = 2 * 22 + 6; // the first entity lane is /sl_A's group lane
  const now = (await canvas(page).boundingBox())!; // the panel may have moved the timeline
  await page.mouse.click(now.x + 30, now.y + groupTop + 20);
  await waitForIdle(page);
  expect(await attr(page, 'data-lanes')).toBe(lanesBefore - 1);
  expect(await attr(page, 'data-group-lanes')).toBe(2);
});
