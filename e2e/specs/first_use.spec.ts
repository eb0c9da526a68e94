// What a first-time user tripped on (issue 18), held at the suite's 1440×900 and narrower:
// the variant picker says what each variant does and where it comes from (keyboard included);
// every tick label of the wakeup-latency histogram is inside the chart and the page; the
// replay view of an SMP capture draws a runqueue-depth track under each CPU lane and a
// per-CPU runqueue table with the time each CPU idled while another was overloaded, and its
// shadow re-simulation's variant picker describes the chosen variant.
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { chooseScenario, openApp, waitForIdle } from '../fixtures/app';
import { ENGINE_VARIANTS } from '../../web/src/engine/protocol';

const SMP_TRACE = fileURLToPath(new URL('../../traces/linux-6.18-smp/three-hogs-two-cpus/trace.dat', import.meta.url));

test('the variant picker shows a description and a source for every named variant', async ({ page }) => {
  await openApp(page);
  await page.locator('.variants summary').click();
  const menu = page.locator('.variant-menu');
  await expect(menu).toBeVisible();
  for (const v of ENGINE_VARIANTS) {
    expect(v.short.length, v.key).toBeGreaterThan(10);
    expect(v.source.length, v.key).toBeGreaterThan(5);
    const row = menu.locator(`[data-variant="${v.key}"]`);
    await row.scrollIntoViewIfNeeded();
    await expect(row.getByTestId('variant-short')).toContainText(v.short);
    // The checkbox is described by the line (short description and source).
    const desc = await row.locator('input').getAttribute('aria-describedby');
    expect(desc).toBe(`variant-desc-${v.key}`);
  }
  // The selected variant (baseline) shows its source on a visible line.
  const base = menu.locator('[data-variant="baseline"]');
  await expect(base.getByTestId('variant-source')).toBeVisible();
  await expect(base.getByTestId('variant-source')).toContainText('Linux 6.18.44');
  // An unselected one shows its source once the keyboard focuses it (not before).
  // (Until then it is only read out: a 1 px clipped box, not a line of its own.)
  const nolimit = menu.locator('[data-variant="debooster-v1-nolimit"]');
  const sourceHeight = async () => (await nolimit.getByTestId('variant-source').boundingBox())?.height ?? 0;
  await page.mouse.move(0, 899);
  expect(await sourceHeight()).toBeLessThanOrEqual(1);
  await nolimit.locator('input').focus();
  await expect.poll(sourceHeight).toBeGreaterThan(8);
  await expect(nolimit.getByTestId('variant-source')).toContainText('Christian Borntraeger');
  await expect(nolimit.getByTestId('variant-short')).toContainText('rate limiter');
  await expect(menu.locator('[data-variant="lag-transfer"] [data-testid="variant-short"]')).toContainText('lag');
  await expect(menu.locator('[data-variant="forfeit-6.19"]')).toHaveAttribute('title', /79104becf42b/);
  // Space toggles the focused variant: it joins the run.
  await page.keyboard.press('Space');
  await page.waitForFunction(() => window.__schedlab!.state().variants.some((v) => v.key === 'debooster-v1-nolimit'));
  await waitForIdle(page);
  await page.mouse.move(0, 899);
  await nolimit.locator('input').blur();
  expect(await sourceHeight(), 'a selected variant shows its source').toBeGreaterThan(8);
  // The menu fits the page: its bottom is on screen (it scrolls inside).
  const box = (await menu.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(900);
});

/** Every tick label's box inside the chart's box, inside the page, and none overlapping. */
async function expectTicksInside(page: Page, what: string) {
  const chart = page.getByTestId('latency-chart');
  await expect(chart).toBeVisible();
  const svg = (await chart.boundingBox())!;
  const vw = page.viewportSize()!.width;
  const ticks = await chart.getByTestId('latency-tick').evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent ?? '', x: r.x, y: r.y, w: r.width, h: r.height };
    }),
  );
  expect(ticks.length, `${what}: tick labels`).toBeGreaterThanOrEqual(4);
  for (const t of ticks) {
    expect(t.w, `${what}: ${t.text} has a width`).toBeGreaterThan(0);
    expect(t.x, `${what}: ${t.text} starts inside the chart`).toBeGreaterThanOrEqual(svg.x - 0.5);
    expect(t.x + t.w, `${what}: ${t.text} ends inside the chart`).toBeLessThanOrEqual(svg.x + svg.width + 0.5);
    expect(t.y + t.h, `${what}: ${t.text} inside the chart's height`).toBeLessThanOrEqual(svg.y + svg.height + 0.5);
    expect(t.x + t.w, `${what}: ${t.text} on the page`).toBeLessThanOrEqual(vw);
  }
  const axis = ticks.filter((t) => t.y > svg.y + svg.height / 2).sort((a, b) => a.x - b.x);
  for (let i = 1; i < axis.length; i++) expect(axis[i].x, `${what}: ${axis[i - 1].text} and ${axis[i].text} overlap`).toBeGreaterThanOrEqual(axis[i - 1].x + axis[i - 1].w);
  // The chart itself is not cut by the panel around it.
  const panel = (await page.getByTestId('metrics').boundingBox())!;
  expect(svg.x + svg.width, `${what}: chart inside the metrics panel`).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
}

test('every wakeup-latency tick label is fully visible, at 1440×900 and narrower', async ({ page }) => {
  await openApp(page);
  // A scenario whose latencies reach milliseconds (the long labels at the right end).
  await chooseScenario(page, 'linux-6.18-smp/three-hogs-two-cpus');
  await expectTicksInside(page, '1440');
  const last = await page.getByTestId('latency-chart').getByTestId('latency-tick').allTextContents();
  expect(last.some((t) => /ms$/.test(t)), `labels reach milliseconds: ${last.join(' ')}`).toBe(true);
  for (const width of [1100, 900, 800]) {
    await page.setViewportSize({ width, height: 900 });
    await waitForIdle(page);
    await expectTicksInside(page, String(width));
  }
});

test('replay of an SMP capture: a runqueue-depth track under each CPU lane and the per-CPU table', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles([SMP_TRACE]);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  await waitForIdle(page);
  const canvas = page.getByTestId('replay-canvas');
  await expect(canvas).toHaveAttribute('data-depth-tracks', '2');
  // Three hogs on two CPUs: runnable tasks waiting somewhere most of the time.
  expect(Number(await canvas.getAttribute('data-depth-segments'))).toBeGreaterThan(0);
  expect(Number(await canvas.getAttribute('data-depth-overloaded'))).toBeGreaterThan(0);
  // Taller lanes: the two CPUs' rows take room (not two thin 22 px lanes).
  const box = (await canvas.boundingBox())!;
  expect(box.height).toBeGreaterThanOrEqual(2 * 90);
  // The table: one row per CPU, each with its idle-while-overloaded figure and a depth ≥ 2.
  const table = page.getByTestId('runqueue-table');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  for (const cpu of [0, 1]) {
    const row = table.locator(`tbody tr[data-cpu="${cpu}"]`);
    await expect(row.locator('[data-key="idle-overloaded"]')).toHaveText(/\d+( ns| µs| ms| s)$/);
    expect(Number(await row.locator('td').nth(1).textContent())).toBeGreaterThanOrEqual(2);
  }
  // The mean runnable counts of the two CPUs add up to about the three hogs.
  const means = (await table.locator('tbody tr td:nth-child(3)').allTextContents()).map(Number);
  expect(means[0] + means[1]).toBeGreaterThan(2.7);
  expect(means[0] + means[1]).toBeLessThan(3.6);
  // The shadow re-simulation's variant picker says what the chosen variant is, too.
  await page.getByLabel('shadow variant').selectOption('lag-transfer');
  await expect(page.getByTestId('shadow-variant-desc')).toContainText('positive lag');
  await expect(page.getByTestId('shadow-variant-desc')).toContainText('Source: review thread suggestion (K Prateek Nayak)');
});
