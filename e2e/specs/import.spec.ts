// Trace import and replay in the browser, with a real Linux 6.18.44 capture (the repository's
// traces/linux-6.18/nice-0-vs-2) and a damaged trace (e2e/fixtures/traces): the file input, the
// progress bar, the diagnostics panel (its counts equal to `schedlab import --json` of the same
// file, kept in e2e/fixtures/traces/*.import.json and checked against the CLI by
// wasm-engine/cli/tests/cli.rs),
// the lanes drawn (data-* attributes of the canvas), the record under the pointer, a .dat with its
// EEVDF dump attached, a malformed file with located skips, the shadow re-simulation (seeded
// from an attached dump too), and the cancel of a large generated trace.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, waitForIdle } from '../fixtures/app';
import type { ImportSummary, ReplayReport, SpreadTable } from '../../web/src/engine/protocol';

const FIX = fileURLToPath(new URL('../fixtures/traces/', import.meta.url));
/** A file of the real capture (`trace.txt`, `trace.dat`, `eevdf-state.txt`). */
const capture = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18/nice-0-vs-2/${file}`, import.meta.url));
/** What `schedlab import --json` prints for a fixture. */
const expected = (file: string) => JSON.parse(readFileSync(join(FIX, `${file}.import.json`), 'utf8')) as ImportSummary;
const canvas = (page: Page) => page.getByTestId('replay-canvas');
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');
const int = (n: number) => n.toLocaleString('en-US');

/** Imports files given by their paths. */
async function importFiles(page: Page, files: string[]) {
  await page.getByTestId('trace-input').setInputFiles(files);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  await waitForIdle(page);
}

/** The diagnostics panel's event table and read line against the CLI's summary. */
async function expectCounts(page: Page, want: { events: Record<string, number>; total_events: number; lines_read: number; lines_skipped: number }, dat: boolean) {
  const panel = page.getByTestId('diagnostics');
  for (const [event, n] of Object.entries(want.events)) {
    await expect(panel.locator(`[data-testid="event-counts"] tr[data-event="${event}"] td`)).toHaveText(int(n));
  }
  await expect(panel.locator('[data-testid="event-counts"] tr')).toHaveCount(Object.keys(want.events).length);
  await expect(panel.locator('[data-key="events"] dd')).toHaveText(new RegExp(`^${int(want.total_events)} records`));
  if (!dat) await expect(panel.locator('[data-key="read"] dd')).toContainText(`${int(want.lines_read)} lines read, ${int(want.lines_skipped)} skipped`);
}

/** Zooms in (W) until `name` is drawn. */
async function zoomUntil(page: Page, name: string, presses = 16) {
  for (let i = 0; i < presses && (await attr(page, name)) === 0; i++) {
    await page.keyboard.press('w');
    await waitForIdle(page);
  }
  expect(await attr(page, name), name).toBeGreaterThan(0);
}

test('tracefs text: diagnostics as schedlab import prints them, runs with their states, wakeup links, migrations, hover and pick', async ({ page }) => {
  await openApp(page);
  const want = expected('nice-0-vs-2.trace.txt');
  await importFiles(page, [capture('trace.txt')]);
  await expect(page.getByTestId('replay-file')).toHaveText('trace.txt');
  const panel = page.getByTestId('diagnostics');
  await expect(panel.locator('[data-key="format"] dd')).toHaveText(want.format_name);
  await expectCounts(page, want, false);
  await expect(panel.locator('[data-key="cpus"] dd')).toHaveText(`${want.cpus.join(', ')} (the header says ${want.cpus_declared})`);
  await expect(panel.locator('[data-key="lost"] dd')).toHaveText('none reported');
  // What the views miss and how to capture it: every item of the CLI's list, with its command.
  const missing = panel.getByTestId('missing').locator('li');
  await expect(missing).toHaveCount(want.missing.length);
  for (const [i, m] of want.missing.entries()) await expect(missing.nth(i).locator('code')).toHaveText(m.capture);
  // The whole trace on 2 CPU lanes; short runs merged at this zoom.
  expect(await attr(page, 'data-cpu-lanes')).toBe(2);
  expect(await attr(page, 'data-spans-drawn')).toBeGreaterThan(100);
  expect(await attr(page, 'data-merged-spans')).toBeGreaterThan(0);
  // The start of the trace (the cursor is at 0): the workload's fork, exec and migrations.
  await zoomUntil(page, 'data-migrations');
  await zoomUntil(page, 'data-wakeup-links');
  // Further in: each run's end state, lettered.
  await zoomUntil(page, 'data-state-letters', 20);
  // Pan across the hogs' alternation on CPU 1 (k_a and k_b leave as R at the tick: PREEMPT_NONE).
  let r = await attr(page, 'data-state-caps-runnable');
  for (let i = 0; i < 60 && r === 0; i++) {
    await page.keyboard.press('d');
    await waitForIdle(page);
    r = await attr(page, 'data-state-caps-runnable');
  }
  expect(r).toBeGreaterThan(0);
  await page.screenshot({ path: 'artifacts/import-states.png' });
  // The record under the pointer on CPU 1 (the middle of its lane, on its row).
  const box = (await canvas(page).boundingBox())!;
  const cpu1 = (await attr(page, 'data-row-pitch')) + (await attr(page, 'data-lane-h')) / 2;
  await page.mouse.move(box.x + box.width / 2, box.y + cpu1);
  await waitForIdle(page);
  const rec = page.getByTestId('hovered-record');
  await expect(rec).toBeVisible();
  await expect(rec.locator('tr').first()).toContainText(/sched_/);
  await expect(page.getByTestId('hovered-span')).toContainText(/k_[ab]/);
  // Pick the run: its switch-in and switch-out records.
  await page.mouse.click(box.x + box.width / 2, box.y + cpu1);
  await waitForIdle(page);
  await expect(page.getByTestId('picked-span')).toContainText(/left the CPU in|still running/);
  await expect(page.getByTestId('span-switch-out').locator('tr[data-field="prev_state"] td')).toHaveText(/^(R|R\+|S|D)$/);
});

test('.dat with its bpftrace EEVDF dump: decoded counts as schedlab import prints them, the dump on the trace clock, real vruntime/deadline lanes', async ({ page }) => {
  await openApp(page);
  const want = expected('nice-0-vs-2.trace.dat');
  await importFiles(page, [capture('eevdf-state.txt'), capture('trace.dat')]);
  await expect(page.getByTestId('replay-file')).toHaveText('trace.dat');
  const panel = page.getByTestId('diagnostics');
  await expect(panel.locator('[data-key="format"] dd')).toHaveText(/^trace-cmd \.dat \(version 7, clock local/);
  await expectCounts(page, want, true);
  // The dump was put on the trace clock and replaces the "EEVDF state" item of the missing list.
  await expect(page.getByTestId('eevdf-alignment')).toHaveAttribute('data-accepted', 'true');
  await expect(page.getByTestId('eevdf-alignment')).toContainText('S lines inside the trace lie on a switch-out of their task');
  await expect(panel.getByTestId('missing')).not.toContainText('EEVDF state');
  expect(await attr(page, 'data-eevdf-lanes')).toBeGreaterThanOrEqual(2);
  expect(await attr(page, 'data-eevdf-points')).toBeGreaterThan(100);
  await page.screenshot({ path: 'artifacts/import-dat-eevdf.png' });
  // Zoom into the hogs and point at the first EEVDF lane: the sample's fields.
  await page.getByTestId('replay-canvas').click({ position: { x: 700, y: 30 } });
  for (let i = 0; i < 10; i++) await page.keyboard.press('w');
  await waitForIdle(page);
  const box = (await canvas(page).boundingBox())!;
  const laneTop = await attr(page, 'data-eevdf-top');
  let found = false;
  for (let x = 120; x < box.width && !found; x += 3) {
    await page.mouse.move(box.x + x, box.y + laneTop + 28);
    found = await page.getByTestId('eevdf-sample').isVisible();
  }
  expect(found).toBe(true);
  await expect(page.getByTestId('eevdf-sample')).toContainText('vruntime − zero_vruntime');
  await page.screenshot({ path: 'artifacts/import-eevdf-zoom.png' });
});

test('a malformed trace: skipped lines grouped by reason with line:column, LOST and out-of-order counted', async ({ page }) => {
  await openApp(page);
  const want = expected('malformed.trace.txt');
  await importFiles(page, [join(FIX, 'malformed.trace.txt')]);
  await expectCounts(page, want, false);
  const rows = page.getByTestId('skipped').locator('tbody tr');
  await expect(rows).toHaveCount(want.skipped.length);
  for (const [i, s] of want.skipped.entries()) {
    await expect(rows.nth(i).locator('td').nth(0)).toHaveText(s.reason);
    await expect(rows.nth(i).locator('td').nth(1)).toHaveText(String(s.count));
    await expect(rows.nth(i).locator('td').nth(2)).toHaveText(s.examples.join(', '));
  }
  const panel = page.getByTestId('diagnostics');
  await expect(panel.locator('[data-key="lost"] dd')).toHaveText(`CPU 1: ${want.lost_events['1']} (${want.lost_lines} LOST lines)`);
  await expect(panel.locator('[data-key="out-of-order"] dd')).toContainText(`CPU 1: ${want.out_of_order}`);
  expect(await attr(page, 'data-spans-drawn')).toBeGreaterThan(0);
  await page.getByTestId('skipped').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'artifacts/import-malformed.png' });
});

test('shadow re-simulation: real vs model share per task, baseline and a variant side by side', async ({ page }) => {
  await openApp(page);
  await importFiles(page, [capture('trace.txt')]);
  // The capture pinned its workload to CPU 1 (its layout file says pin = "observed").
  await page.getByLabel('shadow tasks').selectOption('observed');
  await page.getByTestId('shadow-run').click();
  const table = page.getByTestId('shadow-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  const kA = table.locator('tr[data-task="k_a"] td');
  // The oracle's 60.9 % for k_a (weights 1024:655), and the model within a point of it.
  const real = Number(await kA.nth(2).textContent());
  const model = Number(await kA.nth(3).textContent());
  expect(real).toBeGreaterThan(60);
  expect(real).toBeLessThan(62);
  expect(Math.abs(model - real)).toBeLessThan(1);
  await page.getByLabel('shadow variant').selectOption('no-run-to-parity');
  await page.getByTestId('shadow-run').click();
  await expect(table.locator('th')).toContainText(['baseline %', 'no-run-to-parity %']);
  await expect(page.getByTestId('shadow-agreement')).toHaveCount(2);
  // Per-decision agreement along the real schedule (replay::decisions): 96 % of the picks on
  // this capture under the baseline (wasm-engine/engine/tests/replay.rs holds it at >= 95).
  const picks = await page.getByTestId('shadow-decisions').first().textContent();
  const pct = Number(/\(\s*([0-9.]+) %\)/.exec(picks ?? '')?.[1]);
  expect(pct).toBeGreaterThan(95);
  await page.screenshot({ path: 'artifacts/import-shadow.png' });
});

test('shadow re-simulation seeded from the attached EEVDF dump: cgroup-shares with its layout, as `schedlab replay --eevdf`', async ({ page }) => {
  await openApp(page);
  const cg = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18/${file}`, import.meta.url));
  await importFiles(page, [cg('cgroup-shares/eevdf-state.txt'), cg('cgroup-shares/trace.dat')]);
  await expect(page.getByTestId('eevdf-alignment')).toHaveAttribute('data-accepted', 'true');
  // Attaching the dump opens the trace anew: the thread tracks still get their states (they
  // stayed empty when the tracks in view did not change).
  const threads = page.getByTestId('thread-canvas');
  await expect.poll(async () => Number(await threads.getAttribute('data-thread-segments'))).toBeGreaterThan(0);
  await page.getByTestId('layout-input').setInputFiles(cg('cgroup-shares.layout.toml'));
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-table')).toBeVisible({ timeout: 60_000 });
  // wasm-engine/engine/tests/replay_seed.rs: the root and sl_B's queue seeded, 907 of 914
  // picks (99.2 %) against 85.7 % unseeded; the groups' weights taken from the dump's 256 G records.
  await expect(page.getByTestId('shadow-seed')).toContainText('seeded from the attached EEVDF dump: 2 queues');
  await expect(page.getByTestId('shadow-seed')).toContainText('group weights from 256 records');
  const picks = await page.getByTestId('shadow-decisions').first().textContent();
  const pct = Number(/\(\s*([0-9.]+) %\)/.exec(picks ?? '')?.[1]);
  expect(pct).toBeGreaterThan(98);
  await page.screenshot({ path: 'artifacts/import-shadow-seeded.png' });
});

test("a capture with the bandwidth period timer and the cgroup moves: the shadow replays both, as `schedlab replay` prints", async ({ page }) => {
  await openApp(page);
  const cg = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18-cgroups-v769/${file}`, import.meta.url));
  await importFiles(page, [cg('bandwidth-own-cgroup-1/trace.dat')]);
  await page.getByTestId('layout-input').setInputFiles(cg('bandwidth-own-cgroup.layout.toml'));
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-table')).toBeVisible({ timeout: 60_000 });
  // wasm-engine/engine/tests/replay_cgroups_v769.rs: 396 of 400 picks with the timer's 15
  // expiries and the 3 moves replayed (the .dat's kallsyms names the timer's function).
  await expect(page.getByTestId('shadow-bandwidth')).toContainText('at the 15 period timer expiries the trace shows; 3 cgroup moves');
  await expect(page.getByTestId('shadow-decisions').first()).toContainText('396 of 400 picks');
  await expect(page.getByTestId('shadow-unseen-moves')).toHaveCount(0);
  await page.getByTestId('shadow-bandwidth').scrollIntoViewIfNeeded();
  await page.getByTestId('shadow-agreement').screenshot({ path: 'artifacts/import-shadow-bandwidth-timer.png' });
});

test("the kernel's CPU averages attached to an SMP capture reach the shadow's placements, as `schedlab replay --cpu-avg`", async ({ page }) => {
  await openApp(page);
  const cg = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18-smp-cpuavg/${file}`, import.meta.url));
  // Named in either order, the dump is imported after the trace and attached to it.
  await importFiles(page, [cg('cgroup-shares-smp/cpu-avg.txt'), cg('cgroup-shares-smp/trace.dat')]);
  await expect(page.getByTestId('replay-view')).toContainText('CPU averages cpu-avg.txt');
  await page.getByTestId('layout-input').setInputFiles(cg('cgroup-shares-smp.layout.toml'));
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-table')).toBeVisible({ timeout: 60_000 });
  // wasm-engine/engine/tests/replay_cpu_avg.rs: 438 of 438 samples on their switch; 73 of 74
  // placements at the kernel's averages (68 without).
  await expect(page.getByTestId('shadow-cpu-avg')).toContainText("asked at the kernel's own CPU averages: the attached dump's 438 samples");
  // This capture has no cgroup_attach_task: the four hogs' moves are named as not in the trace
  // (traces/linux-6.18-smp-moves has them: 97.7 and 99.4 % of the picks).
  await expect(page.getByTestId('shadow-unseen-moves')).toContainText('Moves not in the trace: k_a, k_b, k_c, k_d');
  await expect(page.getByTestId('shadow-placements').first()).toContainText('73 of 74 wakeups');
  await page.getByTestId('shadow-cpu-avg').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'artifacts/import-shadow-cpu-avg.png' });
});

test("the kernel's balance passes attached to an SMP capture are asked of the model, as `schedlab replay --balance`", async ({ page }) => {
  await openApp(page);
  const bp = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18-smp-balance/${file}`, import.meta.url));
  // Named in either order, the dump is imported after the trace and attached to it.
  await importFiles(page, [bp('three-hogs-two-cpus-3/balance.txt'), bp('three-hogs-two-cpus-3/trace.dat')]);
  await expect(page.getByTestId('replay-view')).toContainText('balance passes balance.txt');
  await page.getByTestId('layout-input').setInputFiles(bp('three-hogs-two-cpus-3.layout.toml'));
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-table')).toBeVisible({ timeout: 60_000 });
  // wasm-engine/engine/tests/replay_balance_passes.rs and the CLI: 63 of the 65 passes.
  await expect(page.getByTestId('shadow-balance-passes')).toContainText('of the 65 balance passes the attached dump recorded');
  await expect(page.getByTestId('shadow-balance-passes')).toContainText('ended 63 as the kernel did (96.9 %');
  await page.getByTestId('shadow-balance-passes').scrollIntoViewIfNeeded();
  await page.getByTestId('shadow-agreement').screenshot({ path: 'artifacts/import-shadow-balance-passes.png' });
  // A balance dump without its trace is refused with what to do.
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles([bp('nice-imbalance-smp-1/balance.txt')]);
  await expect(page.getByTestId('import-error')).toContainText('a dump of the balance passes goes with its trace: open the trace first, then the dump');
});

test('a CPU-averages dump without its trace is refused with what to do', async ({ page }) => {
  await openApp(page);
  const cg = (file: string) => fileURLToPath(new URL(`../../traces/linux-6.18-smp-cpuavg/${file}`, import.meta.url));
  await page.getByTestId('trace-input').setInputFiles([cg('nice-imbalance-smp/cpu-avg.txt')]);
  await expect(page.getByTestId('import-error')).toContainText('open the trace first, then the dump');
  await expect(page.getByTestId('replay-view')).toHaveCount(0);
});

test('shadow re-simulation of an SMP capture: tasks free, the figures `schedlab replay --json` prints', async ({ page }) => {
  const want = JSON.parse(readFileSync(join(FIX, 'nice-imbalance-smp.trace.txt.replay.json'), 'utf8')) as ReplayReport;
  await openApp(page);
  await importFiles(page, [fileURLToPath(new URL('../../traces/linux-6.18-smp/nice-imbalance-smp/trace.txt', import.meta.url))]);
  await page.getByTestId('shadow-run').click();
  const table = page.getByTestId('shadow-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  const p = want.decisions.placements;
  await expect(page.getByTestId('shadow-placements')).toHaveText(`${p.agreed} of ${p.scored} wakeups (${p.agreement_pct.toFixed(1)} %)`);
  const w = want.decisions.preemptions;
  await expect(page.getByTestId('shadow-preemptions')).toHaveText(`${w.agreed} of ${w.scored} wakeups (${w.agreement_pct.toFixed(1)} %)`);
  await expect(page.getByTestId('shadow-agreement')).toContainText('tasks free');
  // The switch gaps the shadow measured on the trace, as the CLI reports them.
  await expect(page.getByTestId('shadow-switch-gaps')).toContainText(
    `Switches take ${(want.wakeup_switch_latency_ns / 1e3).toFixed(1)} µs after a preempting wakeup (charged to the wakee) and ${(want.schedule_clock_lead_ns / 1e3).toFixed(1)} µs`,
  );
  expect(want.wakeup_switch_latency_ns).toBeGreaterThan(0);
  // Where the shadow's ticks fall against the trace's, as `schedlab replay` prints them.
  expect(want.tick_phase_ns).toBe(0);
  expect(want.trace_tick_phase_ns).not.toBeNull();
  await expect(page.getByTestId('shadow-tick-phase')).toHaveText(
    `Ticks at +0.000 ms of each period, the trace's at +${((want.trace_tick_phase_ns ?? 0) / 1e6).toFixed(3)} ms (variant tick_phase=trace aligns them).`,
  );
  await page.getByTestId('shadow-agreement').screenshot({ path: 'artifacts/import-shadow-switch-gaps.png' });
  for (const t of want.tasks.filter((x) => x.name.startsWith('k_'))) {
    const cells = table.locator(`tr[data-task="${t.name}"] td`);
    const text = await cells.allTextContents();
    // task, CPU, real %, baseline %, Δ, real CPU %, model CPU %, real migrations, model migrations,
    // real switches, model switches.
    expect(text.slice(5, 11)).toEqual([
      t.observed_cpu_pct.toFixed(2),
      t.simulated_cpu_pct.toFixed(2),
      String(t.observed_migrations),
      String(t.simulated_migrations),
      t.observed_switches.toLocaleString('en-US'),
      t.simulated_switches.toLocaleString('en-US'),
    ]);
  }
  // This capture's balance migrations the model all makes: no list of misses.
  expect(p.balance_disagreements).toHaveLength(0);
  await expect(page.getByTestId('shadow-balance-misses')).toHaveCount(0);
  await page.screenshot({ path: 'artifacts/import-shadow-smp.png' });
});

test('shadow re-simulation of three hogs on two CPUs: the balance migrations the model did not make', async ({ page }) => {
  const want = JSON.parse(readFileSync(join(FIX, 'three-hogs-two-cpus.trace.txt.replay.json'), 'utf8')) as ReplayReport;
  await openApp(page);
  await importFiles(page, [fileURLToPath(new URL('../../traces/linux-6.18-smp/three-hogs-two-cpus/trace.txt', import.meta.url))]);
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-table')).toBeVisible({ timeout: 60_000 });
  const p = want.decisions.placements;
  await expect(page.getByTestId('shadow-placements')).toHaveText(`${p.agreed} of ${p.scored} wakeups (${p.agreement_pct.toFixed(1)} %)`);
  // Each balance migration the model did not make, with what its passes did instead.
  expect(p.balance_disagreements.length).toBeGreaterThan(0);
  const misses = page.getByTestId('shadow-balance-misses');
  await misses.locator('summary').click();
  const items = misses.locator('li');
  await expect(items).toHaveCount(p.balance_disagreements.length);
  for (const [i, b] of p.balance_disagreements.entries()) {
    await expect(items.nth(i)).toHaveText(`${(b.at_ns / 1e6).toFixed(3)} ms: the kernel moved ${b.task} from CPU ${b.src_cpu} to CPU ${b.dst_cpu}; the model: ${b.model}`);
  }
});

test('the shadow spread over phases of the tick: each hog\'s range, as `schedlab replay --tick-phases 4 --json`; a second spread can be cancelled', async ({ page }) => {
  const want = JSON.parse(readFileSync(join(FIX, 'three-hogs-two-cpus.trace.txt.spread.json'), 'utf8')) as SpreadTable;
  await openApp(page);
  await importFiles(page, [fileURLToPath(new URL('../../traces/linux-6.18-smp/three-hogs-two-cpus/trace.txt', import.meta.url))]);
  await page.getByLabel('spread over').selectOption('tick_phases');
  await page.getByLabel('spread runs').fill('4');
  await page.getByTestId('spread-run').click();
  const table = page.getByTestId('spread-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('spread-title')).toContainText(`(baseline) ${want.under}: CPU time, % of one CPU. The real figure lies inside the model's range at ${want.inside} of ${want.rows.length} tasks.`);
  for (const r of want.rows) {
    const cells = await table.locator(`tr[data-task="${r.name}"] td`).allTextContents();
    expect(cells).toEqual([r.name, r.observed_cpu_pct.toFixed(2), r.least.toFixed(2), r.mean.toFixed(2), r.most.toFixed(2), r.inside ? 'yes' : 'no']);
  }
  await page.getByTestId('spread').screenshot({ path: 'artifacts/import-shadow-spread.png' });
  await page.getByTestId('shadow-panel').screenshot({ path: 'artifacts/import-shadow-spread-panel.png' });
  // 64 runs: the progress counts the runs, and Cancel stops them; the table on screen stays.
  await page.getByLabel('spread runs').fill('64');
  await page.getByTestId('spread-run').click();
  const bar = page.getByTestId('import-progress');
  await expect(bar.getByTestId('import-progress-text')).toContainText('shadow runs:', { timeout: 30_000 });
  await expect(bar.getByTestId('import-progress-text')).toContainText('of 64');
  await bar.getByTestId('import-cancel').click();
  await expect(bar).toHaveCount(0);
  await expect(page.getByTestId('spread-title')).toContainText(want.under);
  // Out of range: refused before anything runs.
  await page.getByLabel('spread runs').fill('65');
  await expect(page.getByTestId('spread-run')).toBeDisabled();
});

test('cancel: a 200 MB generated trace stops reading, the handle is freed and the app answers', async ({ page }) => {
  await openApp(page);
  // 200 MB of tracefs text built in the page from one 1 MiB block (Blob parts share it).
  await page.evaluate(() => {
    const line = (i: number) => `           k_a-22695   [001] d..2.   ${(545 + i / 1e6).toFixed(6)}: sched_stat_runtime: comm=k_a pid=22695 runtime=4000000 [ns]\n`;
    let block = '# tracer: nop\n';
    for (let i = 0; block.length < 1 << 20; i++) block += line(i);
    const bytes = new TextEncoder().encode(block);
    const parts = Array.from({ length: 200 }, () => bytes);
    const file = new File(parts, 'big.trace.txt');
    (window as unknown as { __big: Promise<void> }).__big = window.__schedlab!.importFiles([file]);
  });
  const bar = page.getByTestId('import-progress');
  await expect(bar).toBeVisible();
  await expect.poll(async () => Number(await bar.getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 30_000 }).toBeGreaterThan(0);
  await expect(bar.getByTestId('import-progress-text')).toContainText('of 200.0 MiB');
  await bar.getByTestId('import-cancel').click();
  await expect(bar).toHaveCount(0);
  await page.evaluate(() => (window as unknown as { __big: Promise<void> }).__big);
  // The import handle is gone; the scenario view never left.
  const stats = await page.evaluate(() => window.__schedlab!.workerStats());
  expect(stats.importHandles).toBe(0);
  await expect(page.getByTestId('replay-view')).toHaveCount(0);
  await expect(page.locator('[data-testid="timeline-block"] canvas').first()).toBeVisible();
  await page.keyboard.press('w');
  await waitForIdle(page);
});

test('drop on the page: an EEVDF dump alone gives its lanes; a scenario file still opens in the editor', async ({ page }) => {
  await openApp(page);
  const dump = readFileSync(capture('eevdf-state.txt'), 'utf8');
  const drop = async (name: string, text: string) => {
    const dt = await page.evaluateHandle(
      ([n, t]) => {
        const d = new DataTransfer();
        d.items.add(new File([t], n));
        return d;
      },
      [name, text],
    );
    await page.dispatchEvent('.app', 'drop', { dataTransfer: dt });
  };
  await drop('eevdf-state.txt', dump);
  await expect(page.getByTestId('replay-view')).toBeVisible();
  await waitForIdle(page);
  const want = expected('nice-0-vs-2.eevdf-state.txt');
  await expect(page.getByTestId('diagnostics').locator('[data-key="format"] dd')).toHaveText(want.format_name);
  await expect(page.getByTestId('diagnostics').locator('[data-key="events"] dd')).toHaveText(`0 records, ${int(want.eevdf_samples)} EEVDF samples`);
  expect(await attr(page, 'data-cpu-lanes')).toBe(0);
  expect(await attr(page, 'data-eevdf-lanes')).toBeGreaterThanOrEqual(2);
  expect(await attr(page, 'data-eevdf-points')).toBeGreaterThan(0);
  await page.getByTestId('shadow-run').click();
  await expect(page.getByTestId('shadow-error')).toContainText('needs a trace with sched_switch records');
  // Close the trace: back to the scenarios; a dropped scenario opens as before.
  await page.getByTestId('replay-close').click();
  await expect(page.getByTestId('replay-view')).toHaveCount(0);
  const toml = readFileSync(new URL('../../scenarios/gallery/nice-ladder.toml', import.meta.url), 'utf8');
  await drop('dropped.toml', toml);
  await page.waitForFunction(() => window.__schedlab?.state().scenario === 'inline');
  await waitForIdle(page);
  expect((await page.evaluate(() => window.__schedlab!.workerStats())).importHandles).toBe(0);
});
