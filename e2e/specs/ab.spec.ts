// The A/B comparison in the replay view, with the real A/B captures of traces/linux-6.18-ab
// (Linux 6.18.44; README there): base-1 as A, then base-2 as B (the same workload twice:
// nothing flagged at 5 %), then shares-2048 as B (k_a's group weight doubled: k_a's CPU time
// flagged up, k_b's down). The diff table's figures are read against what `schedlab diff --json`
// prints for the same files (e2e/fixtures/traces/ab.*.diff.json, kept so by
// wasm-engine/cli/tests/cli.rs); B's timeline is drawn and follows A's zoom; the latency CDFs
// are drawn; renamed tasks are matched; another trace as A is compared with the same B; closing
// B, or the trace, frees it in the worker.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApp, waitForIdle } from '../fixtures/app';
import type { TraceDiff } from '../../web/src/engine/protocol';

const capture = (name: string) => fileURLToPath(new URL(`../../traces/linux-6.18-ab/${name}/trace.dat`, import.meta.url));
const expected = (b: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../fixtures/traces/ab.base-1.${b}.diff.json`, import.meta.url)), 'utf8')) as TraceDiff;
/** The figures the task table shows. */
const TASK_FIGURES = ['cpu', 'latency_p50', 'latency_p90', 'latency_p99', 'latency_max', 'wakeups', 'switches', 'involuntary', 'migrations'];
const aCanvas = (page: Page) => page.locator('.timeline-wrap > div > [data-testid="replay-timeline"] [data-testid="replay-canvas"]').first();
const bCanvas = (page: Page) => page.getByTestId('ab-b-timeline').getByTestId('replay-canvas');
const num = async (l: Locator, name: string) => Number((await l.getAttribute(name)) ?? 'NaN');

async function openB(page: Page, name: string, flagged: number) {
  await page.getByTestId('ab-input').setInputFiles(capture(name));
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-flagged', String(flagged), { timeout: 30_000 });
  await waitForIdle(page);
}

/** Every task row's figures as `schedlab diff --json` gives them. */
async function expectTable(page: Page, want: TraceDiff) {
  const rows = page.getByTestId('ab-task-table').locator('tbody tr');
  // Comms with every figure zero on both sides are left out of the table, and counted.
  const shown = want.tasks.filter((t) => t.figures.some((f) => f.a || f.b));
  expect(shown.length).toBeGreaterThan(3);
  await expect(rows).toHaveCount(shown.length);
  if (shown.length < want.tasks.length) await expect(page.getByTestId('ab-hidden')).toHaveAttribute('data-hidden', String(want.tasks.length - shown.length));
  for (const [i, t] of shown.entries()) {
    const row = rows.nth(i);
    await expect(row).toHaveAttribute('data-comm', t.comm);
    for (const name of TASK_FIGURES) {
      const f = t.figures.find((x) => x.name === name);
      const cell = row.locator(`td[data-figure="${name}"]`);
      if (!f) {
        await expect(cell).toHaveCount(0);
        continue;
      }
      for (const side of ['a', 'b'] as const) {
        const got = await cell.getAttribute(`data-${side}`);
        const v = f[side];
        // (The fixture went through serde_json's parser, which may move a float by an ulp.)
        if (v === null) expect(got, `${t.comm} ${name} ${side}`).toBe('');
        else expect(Number(got), `${t.comm} ${name} ${side}`).toBeCloseTo(v, 9);
      }
      expect(await cell.getAttribute('data-flagged'), `${t.comm} ${name} flagged`).toBe(String(f.flagged));
    }
  }
  await expect(page.getByTestId('ab-cpu-table').locator('tbody tr')).toHaveCount(want.cpus.length);
}

test('A/B: base-1 against base-2 flags nothing, against shares-2048 flags k_a up and k_b down; B follows A; CDFs', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles(capture('base-1'));
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await expect(page.getByTestId('ab-open')).toHaveText('Open B…');

  // Pair 1: the same workload twice.
  const same = expected('base-2');
  expect(same.flagged).toBe(0);
  await openB(page, 'base-2', 0);
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-noise', '5');
  await expectTable(page, same);
  await expect(page.locator('.ab-cell.flagged')).toHaveCount(0);
  for (const comm of ['k_a', 'k_b', 'k_s']) await expect(page.locator(`[data-testid="ab-task-table"] tr[data-comm="${comm}"]`)).toHaveAttribute('data-presence', 'both');

  // B's timeline: its lanes drawn on A's view window; A's zoom moves both.
  await expect.poll(() => num(bCanvas(page), 'data-spans-drawn')).toBeGreaterThan(50);
  const before = await num(aCanvas(page), 'data-view-t1');
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  await waitForIdle(page);
  await expect.poll(() => num(aCanvas(page), 'data-view-t1')).toBeLessThan(before);
  const [t0, t1] = [await num(aCanvas(page), 'data-view-t0'), await num(aCanvas(page), 'data-view-t1')];
  await expect.poll(() => num(bCanvas(page), 'data-view-t0')).toBe(t0);
  expect(await num(bCanvas(page), 'data-view-t1')).toBe(t1);
  expect(await num(bCanvas(page), 'data-spans-drawn')).toBeGreaterThan(0);

  // Pair 2: k_a's group weight doubled.
  const two = expected('shares-2048');
  await openB(page, 'shares-2048', two.flagged);
  await expectTable(page, two);
  for (const [comm, sign] of [
    ['k_a', '▲'],
    ['k_b', '▼'],
  ] as const) {
    const cell = page.locator(`[data-testid="ab-task-table"] tr[data-comm="${comm}"] td[data-figure="cpu"]`);
    await expect(cell).toHaveAttribute('data-flagged', 'true');
    await expect(cell.locator('.ab-delta')).toContainText(sign);
    const delta = await num(cell, 'data-delta');
    expect(comm === 'k_a' ? delta > 10 : delta < -10, `${comm} CPU % delta ${delta}`).toBe(true);
  }
  await expect(page.locator('.ab-cell.flagged')).toHaveCount(two.flagged);

  // The CSV: every figure of every row (also the comms the table leaves out), raw values.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('ab-csv').getByRole('button', { name: 'Download CSV' }).click()]);
  const lines = readFileSync(await dl.path()).toString('utf8').trimEnd().split('\r\n');
  expect(lines[0]).toBe('row,name,name_b,figure,unit,a,b,delta,relative_pct,count_a,count_b,flagged');
  const figures = two.tasks.reduce((n, t) => n + t.figures.length, 0) + two.cpus.reduce((n, c) => n + c.figures.length, 0);
  expect(lines).toHaveLength(1 + figures);
  const kaCpu = lines.find((l) => l.startsWith('task,k_a,,cpu,'))!.split(',');
  const kaWant = two.tasks.find((t) => t.comm === 'k_a')!.figures[0];
  expect(Number(kaCpu[5])).toBeCloseTo(kaWant.a!, 9);
  expect(Number(kaCpu[6])).toBeCloseTo(kaWant.b!, 9);
  expect(kaCpu[11]).toBe('1');

  // The CDFs: one per matched task with wakeups; k_s's as many samples as its wakeups.
  const ks = two.tasks.find((t) => t.comm === 'k_s')!;
  const wakeups = ks.figures.find((f) => f.name === 'wakeups')!.counts!;
  const cdf = page.locator('[data-testid="ab-cdf"][data-comm="k_s"]');
  await expect(cdf).toHaveAttribute('data-n-a', String(wakeups[0]));
  await expect(cdf).toHaveAttribute('data-n-b', String(wakeups[1]));
  expect(await num(cdf, 'data-points-a')).toBeGreaterThan(10);
  expect(await num(cdf, 'data-points-b')).toBeGreaterThan(10);
  expect(await cdf.locator('path[data-side="b"]').getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+V/);

  // A higher noise level flags fewer figures: only those past 40 %.
  const past40 = two.tasks.flatMap((t) => t.figures).concat(two.cpus.flatMap((c) => c.figures)).filter((f) => f.flagged && Math.abs(f.relative_pct ?? Infinity) > 40).length;
  await page.getByTestId('ab-noise').fill('40');
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-flagged', String(past40));
  expect(past40).toBeLessThan(two.flagged);

  // A renamed task (`--match`): k_a of A against k_b of B; a comm A does not have is named.
  const match = page.getByTestId('ab-match');
  await match.fill('k_a=k_b');
  await match.press('Enter');
  await expect(page.locator('[data-testid="ab-task-table"] tr[data-comm="k_a"][data-presence="both"] th')).toContainText('k_a → k_b');
  await expect(page.locator('[data-testid="ab-task-table"] tr[data-comm="k_a"][data-presence="b"]')).toHaveCount(1);
  await match.fill('k_z=k_b');
  await match.press('Enter');
  await expect(page.getByTestId('ab-error')).toContainText('A has no task named "k_z"');
  await match.fill('');
  await match.press('Enter');
  await page.getByTestId('ab-noise').fill('5');
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-flagged', String(two.flagged));
  await expect(page.getByTestId('ab-error')).toHaveCount(0);

  // Another trace as A is compared with the same B.
  await page.getByTestId('trace-input').setInputFiles(capture('base-2'));
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-window-a', String(same.b.window_ns), { timeout: 30_000 });
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-window-b', String(two.b.window_ns));
  await waitForIdle(page);
  expect(await num(bCanvas(page), 'data-spans-drawn')).toBeGreaterThan(0);

  // Close B: only A is held; with B open again, closing the trace frees both.
  await page.getByTestId('ab-close').click();
  await expect(page.getByTestId('ab-b-timeline')).toHaveCount(0);
  await waitForIdle(page);
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(1);
  await page.getByTestId('ab-input').setInputFiles(capture('base-1'));
  await expect(page.getByTestId('ab-legend')).toBeVisible({ timeout: 30_000 });
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(2);
  await page.getByTestId('replay-close').click();
  await waitForIdle(page);
  await expect(page.getByTestId('replay-view')).toHaveCount(0);
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(0);
});

/** Drops a file built in the page on the A/B panel (as a user's drag and drop): `bytes` (base64)
 * as `name`, or with no bytes 200 MB of tracefs text from one 1 MiB block (Blob parts share it). */
async function dropOnPanel(page: Page, name: string, b64: string | null) {
  await page.evaluate(
    ({ name, b64 }) => {
      let parts: BlobPart[];
      if (b64 !== null) {
        const bin = atob(b64);
        const u = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
        parts = [u];
      } else {
        const line = (i: number) => `           k_a-22695   [001] d..2.   ${(545 + i / 1e6).toFixed(6)}: sched_stat_runtime: comm=k_a pid=22695 runtime=4000000 [ns]\n`;
        let block = '# tracer: nop\n';
        for (let i = 0; block.length < 1 << 20; i++) block += line(i);
        const bytes = new TextEncoder().encode(block);
        parts = Array.from({ length: 200 }, () => bytes);
      }
      const dt = new DataTransfer();
      dt.items.add(new File(parts, name));
      document.querySelector('[data-testid="ab-panel"]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name, b64 },
  );
}

test('A/B: a file dropped on the panel opens as B (A stays); a 200 MB B shows progress and cancels, freeing its handle', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles(capture('base-1'));
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await dropOnPanel(page, 'big.trace.txt', null);
  const bar = page.getByTestId('import-progress');
  await expect(bar).toContainText('B: big.trace.txt');
  await expect.poll(async () => Number(await bar.getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 30_000 }).toBeGreaterThan(0);
  await bar.getByTestId('import-cancel').click();
  await expect(bar).toHaveCount(0);
  await waitForIdle(page);
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(1);
  await expect(page.getByTestId('ab-b-timeline')).toHaveCount(0);
  await expect(page.getByTestId('replay-file')).toHaveText('trace.dat');

  // A real capture dropped on the panel: B, not a new A.
  const b64 = readFileSync(capture('base-2')).toString('base64');
  await dropOnPanel(page, 'base-2.dat', b64);
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-flagged', '0', { timeout: 30_000 });
  await expect(page.getByTestId('ab-b-file')).toHaveText('base-2.dat');
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-window-a', String(expected('base-2').a.window_ns));
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(2);
});

test("the shadow re-simulation's run as B: the diff against the trace gives the shadow table's CPU figures", async ({ page }) => {
  const THREE = fileURLToPath(new URL('../../traces/linux-6.18-smp/three-hogs-two-cpus/trace.dat', import.meta.url));
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles([THREE]);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await page.getByTestId('shadow-run').click();
  const shadowRow = page.locator('[data-testid="shadow-table"] tr[data-task="k_a"] td');
  await expect(shadowRow.first()).toBeVisible({ timeout: 30_000 });
  const realCpu = Number(await shadowRow.nth(5).textContent());
  const modelCpu = Number(await shadowRow.nth(6).textContent());
  await page.getByTestId('shadow-as-b').click();
  await expect(page.getByTestId('ab-b-file')).toHaveText('shadow of trace.dat (baseline)', { timeout: 30_000 });
  const cell = page.locator('[data-testid="ab-task-table"] tr[data-comm="k_a"] td[data-figure="cpu"]');
  await expect(cell).toHaveAttribute('data-b', /\d/);
  // A is the trace, B the model's run of the same workload: CPU % of each one's window. The
  // diff counts k_a's run on CPU 1 before that CPU's first sched_switch (from the trace's start,
  // as the timeline draws it, 4.4 ms = 0.29 pp); the shadow's observed schedule does not.
  expect(Math.abs(Number(await cell.getAttribute('data-a')) - realCpu)).toBeLessThan(0.4);
  expect(Math.abs(Number(await cell.getAttribute('data-b')) - modelCpu)).toBeLessThan(0.3);
  await expect(page.getByTestId('ab-b-timeline')).toBeVisible();
});
