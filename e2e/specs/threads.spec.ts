// The replay view's thread-state tracks (issue 19): a hand-made tracefs trace with the
// record-tgid column (e2e/fixtures/traces/threads.trace.txt: a process of three threads, a hog,
// a kworker on two CPUs) grouped by process; the filter, collapse, pins from mouse and keyboard,
// selection shared with the CPU lanes, and the hover text; then a real capture's tracks.
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../fixtures/test';
import { openApp, waitForIdle } from '../fixtures/app';

const FIXTURE = fileURLToPath(new URL('../fixtures/traces/threads.trace.txt', import.meta.url));
const REAL = fileURLToPath(new URL('../../traces/linux-6.18-smp/nice-imbalance-smp/trace.txt', import.meta.url));
const canvas = (page: Page) => page.getByTestId('thread-canvas');
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');
const labels = (page: Page) => page.locator('[data-testid="thread-tracks"] .thread-label');
/** The hover text now ('' when none is shown), without waiting for one. */
const hoverText = (page: Page) => page.evaluate(() => document.querySelector('[data-testid="thread-hover"]')?.textContent ?? '');

async function open(page: Page, file: string) {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles([file]);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await expect(page.getByTestId('thread-tracks')).toBeVisible();
}

test('thread tracks grouped by process: filter, collapse, pin, select, hover', async ({ page }) => {
  await open(page, FIXTURE);
  await expect(page.getByTestId('thread-count')).toHaveText('5 of 5 threads · 3 processes');
  await expect(labels(page)).toHaveText(['▾ web 200 (3)', 'io 202📌', 'web 200📌', 'worker 201📌', 'hog 300📌', 'kworker/1:0 40📌']);
  await expect.poll(() => attr(page, 'data-thread-tracks')).toBe(5);
  // Every state the fixture holds is drawn: runs, preemptions (R+), the worker's sleep (S) and
  // its wait after the wakeup (R), the io thread's D, the kworker's I.
  for (const s of ['Running', 'Preempted', 'Sleeping', 'Runnable', 'Uninterruptible', 'Idle']) {
    await expect.poll(() => attr(page, `data-thread-states-${s.toLowerCase()}`), s).toBeGreaterThan(0);
  }

  // Filter by name, then by pid (a process's pid keeps all of its threads).
  await page.getByTestId('thread-filter').fill('work');
  await expect(labels(page)).toHaveText(['▾ web 200 (3)', 'worker 201📌', 'kworker/1:0 40📌']);
  await expect.poll(() => attr(page, 'data-thread-tracks')).toBe(2);
  await page.getByTestId('thread-filter').fill('IO');
  await expect(labels(page)).toHaveText(['▾ web 200 (3)', 'io 202📌']);
  await page.getByTestId('thread-filter').fill('200');
  await expect(labels(page)).toHaveCount(4);
  await page.getByTestId('thread-filter').fill('');

  // Collapse the process, expand it again from the keyboard.
  const proc = page.getByRole('button', { name: /web 200 \(3\)/ });
  await proc.click();
  await expect(proc).toHaveAttribute('aria-expanded', 'false');
  await expect.poll(() => attr(page, 'data-thread-tracks')).toBe(2);
  await proc.focus();
  await page.keyboard.press('Enter');
  await expect(proc).toHaveAttribute('aria-expanded', 'true');
  await expect.poll(() => attr(page, 'data-thread-tracks')).toBe(5);

  // Pin the hog with its pin button, the kworker with P on its name: both on top.
  await page.getByRole('button', { name: 'pin hog 300' }).click();
  await page.locator('.thread-name[data-task]', { hasText: 'kworker/1:0 40' }).focus();
  await page.keyboard.press('p');
  await expect(labels(page).first()).toHaveText('📌 pinned');
  await expect(labels(page).nth(1)).toHaveText('hog 300📌');
  await expect(labels(page).nth(2)).toHaveText('kworker/1:0 40📌');
  await expect(page.getByTestId('thread-count')).toContainText('2 pinned');
  await page.getByRole('button', { name: 'unpin hog 300' }).click();
  await expect(labels(page).nth(1)).toHaveText('kworker/1:0 40📌');

  // Selecting a thread outlines it on the CPU lanes (the replay's selection) and on its track.
  await page.locator('.thread-name[data-task]', { hasText: 'worker 201' }).click();
  await expect(page.locator('.thread-label.selected')).toHaveText('worker 201📌');

  // The worker's wakeups are drawn from io's track (its waker) to its own; its Runnable stretch
  // after a wakeup names the waker, and a click there goes to the waker's track.
  await expect.poll(() => attr(page, 'data-thread-wake-arrows')).toBeGreaterThan(0);
  const cbox = (await canvas(page).boundingBox())!;
  const wrow = (await labels(page).filter({ hasText: 'worker 201' }).boundingBox())!;
  let woken = '';
  let at = 0;
  for (let x = cbox.x + 120; x < cbox.x + cbox.width - 10 && !/woken by io 202/.test(woken); x += 2) {
    await page.mouse.move(x, wrow.y + wrow.height / 2);
    woken = await hoverText(page);
    at = x;
  }
  expect(woken).toMatch(/^worker 201: Runnable for .* — woken by io 202 on CPU 1 \(click: go to its track\)$/);
  await page.mouse.click(at, wrow.y + wrow.height / 2);
  await expect(page.locator('.thread-label.selected')).toHaveText('io 202📌');

  // Hover over the hog's track in the middle of the trace: its state in words, with the CPU.
  const box = (await canvas(page).boundingBox())!;
  const row = await labels(page).filter({ hasText: 'hog 300' }).boundingBox();
  let hover = '';
  for (let x = box.x + 150; x < box.x + box.width - 10 && !/Running on CPU 0/.test(hover); x += 7) {
    await page.mouse.move(x, row!.y + row!.height / 2);
    hover = await hoverText(page);
  }
  expect(hover).toMatch(/^hog 300: Running on CPU 0 for /);
});

test('a real capture: one track per task, the hogs running and preempted, zoom refetches', async ({ page }) => {
  await open(page, REAL);
  await expect(page.getByTestId('thread-count')).toHaveText('20 of 20 threads · 20 processes');
  // The busiest first: the four k_* hogs of nice-imbalance-smp.
  await expect(labels(page).nth(0)).toContainText('k_a');
  for (let i = 1; i < 4; i++) await expect(labels(page).nth(i)).toContainText(/k_[bcd]/);
  await expect.poll(() => attr(page, 'data-thread-states-running')).toBeGreaterThan(0);
  const before = await attr(page, 'data-thread-segments');
  // Zoom in around the cursor: the tracks are asked again for the new window.
  await page.getByTestId('replay-canvas').click({ position: { x: 600, y: 40 } });
  for (let i = 0; i < 6; i++) await page.keyboard.press('w');
  await waitForIdle(page);
  await expect.poll(() => attr(page, 'data-thread-segments')).not.toBe(before);
  await page.getByTestId('thread-filter').fill('k_');
  await expect.poll(() => attr(page, 'data-thread-tracks')).toBe(4);
});

test('the runqueue-depth track answers the pointer; under 800 px the side panel goes under the timeline', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 1000 });
  await open(page, REAL);
  const lanes = page.getByTestId('replay-canvas');
  const laneH = Number(await lanes.getAttribute('data-lane-h'));
  const box = (await lanes.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + laneH + 20);
  await expect(page.getByTestId('hovered-depth')).toHaveText(/^CPU 0: \d+ runnable .*→/);
  // The timeline keeps the width; the inspector follows it below.
  const side = (await page.locator('.replay-side').boundingBox())!;
  expect(box.width).toBeGreaterThan(650);
  expect(side.y).toBeGreaterThan(box.y + box.height);
});

test('an area selected with Shift+drag: its figures from the engine, as CSV, cleared by Escape', async ({ page }) => {
  const THREE = fileURLToPath(new URL('../../traces/linux-6.18-smp/three-hogs-two-cpus/trace.dat', import.meta.url));
  await open(page, THREE);
  await expect(page.getByTestId('selection-hint')).toBeVisible();
  const lanes = page.getByTestId('replay-canvas');
  const b = (await lanes.boundingBox())!;
  const pitch = Number(await lanes.getAttribute('data-row-pitch'));
  // Over both CPU rows, the middle half of the trace.
  await page.keyboard.down('Shift');
  await page.mouse.move(b.x + 110 + (b.width - 110) * 0.25, b.y + 10);
  await page.mouse.down();
  await page.mouse.move(b.x + 110 + (b.width - 110) * 0.75, b.y + pitch + 10, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const sel = page.getByTestId('selection');
  await expect(sel.locator('h3')).toContainText('CPU 0, 1');
  await expect(page.getByTestId('area-band')).toHaveCount(1);
  // The three hogs ran the whole time on two CPUs: each about two thirds of the range.
  const rows = sel.locator('[data-testid="selection-tasks"] tbody tr');
  for (let i = 0; i < 3; i++) {
    await expect(rows.nth(i).locator('td').first()).toContainText(/^k_[abc] /);
    const share = parseFloat((await rows.nth(i).locator('[data-key="cpu-share"]').textContent()) ?? '');
    expect(share).toBeGreaterThan(50);
    expect(share).toBeLessThan(80);
  }
  const busy = sel.locator('[data-testid="selection-cpus"] tbody tr [data-key="busy"]');
  await expect(busy).toHaveCount(2);
  for (const t of await busy.allTextContents()) expect(parseFloat(t)).toBeGreaterThan(99);
  // The CSV: one line per task row, then the CPU table.
  const [d] = await Promise.all([page.waitForEvent('download'), sel.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = readFileSync(await d.path(), 'utf8');
  const lines = csv.split(/\r?\n/);
  const taskLines = lines.slice(1, lines.indexOf(''));
  expect(taskLines.length).toBe(await rows.count());
  expect(csv).toMatch(/k_a/);
  await page.keyboard.press('Escape');
  await expect(sel).toHaveCount(0);
  await expect(page.getByTestId('area-band')).toHaveCount(0);
});
