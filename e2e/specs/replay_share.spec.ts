// Share links of the replay view (issue 19) and the thread tracks' cgroup filter. Bundled: the
// repository's small text captures (traces/linux-6.18/cgroup-shares as A with its layout file,
// nice-0-vs-2 as B) travel inside the link; the view is changed (zoom, cursor, a selected
// task, a pinned one, the filter `cgroup:/sl_B`, the noise level), the link taken from the Share
// button and opened in a new page load: the same traces, window, selection, pins, filter,
// cgroups and noise come back. Named: a 1.1 MiB `.dat` (traces/linux-6.18-ab/base-1, too large
// to bundle) with the shadow run as B; opening its link asks for the file, refuses another
// capture with the reason, and restores with the right one (B re-simulated). A corrupted and
// a truncated link are shown, not thrown. An SMP capture with its CPU-averages dump: both named,
// both asked for, the dump attached again. And cgroups from the trace itself: a hand-made
// tracefs trace with cgroup_attach_task records (e2e/fixtures/traces/cgroups.trace.txt). A shadow
// spread travels as its question and is run again: its table comes back cell for cell.
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SpreadTable } from '../../web/src/engine/protocol';
import { expect, test } from '../fixtures/test';
import { openApp, waitForIdle } from '../fixtures/app';

const repo = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const A_TEXT = repo('traces/linux-6.18/cgroup-shares/trace.txt');
const LAYOUT = repo('traces/linux-6.18/cgroup-shares.layout.toml');
const B_TEXT = repo('traces/linux-6.18/nice-0-vs-2/trace.txt');
const A_DAT = repo('traces/linux-6.18-ab/base-1/trace.dat');
const OTHER_DAT = repo('traces/linux-6.18-ab/base-2/trace.dat');
const CGROUPS = repo('e2e/fixtures/traces/cgroups.trace.txt');
const SMP_DAT = repo('traces/linux-6.18-smp-cpuavg/nice-imbalance-smp/trace.dat');
const SMP_CPU_AVG = repo('traces/linux-6.18-smp-cpuavg/nice-imbalance-smp/cpu-avg.txt');
const BAL_DAT = repo('traces/linux-6.18-smp-balance/nice-imbalance-smp-1/trace.dat');
const BAL_DUMP = repo('traces/linux-6.18-smp-balance/nice-imbalance-smp-1/balance.txt');
const THREE_HOGS = repo('traces/linux-6.18-smp/three-hogs-two-cpus/trace.txt');
/** `schedlab replay --tick-phases 4 --json` of THREE_HOGS (refreshed by the CLI test `spread_fixture_matches_the_e2e_expectations`). */
const THREE_HOGS_SPREAD = repo('e2e/fixtures/traces/three-hogs-two-cpus.trace.txt.spread.json');

const aCanvas = (page: Page) => page.locator('.timeline-wrap > div > [data-testid="replay-timeline"] [data-testid="replay-canvas"]').first();
const labels = (page: Page) => page.locator('[data-testid="thread-tracks"] .thread-name');
const viewOf = async (page: Page) => [Number(await aCanvas(page).getAttribute('data-view-t0')), Number(await aCanvas(page).getAttribute('data-view-t1'))];

async function importA(page: Page, file: string) {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles(file);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
}

/** The link the Share button makes (and shows). */
async function takeLink(page: Page): Promise<string> {
  await page.getByTestId('share').click();
  const box = page.getByRole('textbox', { name: 'share link' });
  await expect(box).toHaveValue(/#r1\./, { timeout: 30_000 });
  return box.inputValue();
}

/** Opens `url` as a new page load (not a same-document fragment change). */
async function reopen(page: Page, url: string) {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForFunction(() => !!window.__schedlab);
}

test('bundled: A with its layout and B travel in the link, and the view comes back', async ({ page }) => {
  await importA(page, A_TEXT);
  // The layout file names the cgroups (the trace has no cgroup_attach_task records).
  await page.getByTestId('layout-input').setInputFiles(LAYOUT);
  await expect(labels(page).filter({ hasText: 'k_a' }).first()).toHaveAttribute('data-cgroup', '/sl_A');
  await page.getByTestId('thread-filter').fill('cgroup:/sl_B');
  // The busiest first.
  await expect(labels(page)).toHaveText([/^k_c /, /^k_b /]);
  for (const l of await labels(page).all()) await expect(l).toHaveAttribute('data-cgroup', '/sl_B');
  await expect(labels(page).first()).toHaveAttribute('title', /in cgroup \/sl_B/);

  await page.getByTestId('ab-input').setInputFiles(B_TEXT);
  await expect(page.getByTestId('ab-legend')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('ab-noise').fill('12');
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-noise', '12');

  // Zoom around a cursor, select k_b, pin k_c.
  const full = await viewOf(page);
  await aCanvas(page).click({ position: { x: 700, y: 30 } });
  for (let i = 0; i < 6; i++) await page.keyboard.press('w');
  await labels(page).filter({ hasText: 'k_b' }).click();
  await page.getByRole('button', { name: /^pin k_c / }).click();
  await waitForIdle(page);
  const view = await viewOf(page);
  expect(view[1] - view[0]).toBeLessThan((full[1] - full[0]) / 2);
  const selectedTask = await page.locator('.thread-label.selected .thread-name').first().getAttribute('data-task');
  expect(selectedTask).not.toBeNull();

  const url = await takeLink(page);
  // Both captures are inside: no notice that the link names a file.
  await expect(page.getByText(/The link names/)).toHaveCount(0);
  expect(url.length).toBeLessThan(200_000);

  await reopen(page, url);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('ab-legend')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
  await expect(page.getByTestId('replay-file')).toHaveText('trace.txt');
  await expect(page.getByTestId('ab-b-file')).toHaveText('trace.txt');
  await expect(page.getByTestId('ab-legend')).toHaveAttribute('data-noise', '12');
  await expect(page.getByTestId('ab-noise')).toHaveValue('12');
  expect(await viewOf(page)).toEqual(view);
  await expect(page.getByTestId('thread-filter')).toHaveValue('cgroup:/sl_B');
  // k_c pinned on top (with the layout's cgroup), k_b selected below.
  await expect(page.locator('[data-testid="thread-tracks"] .thread-label.process')).toHaveText('📌 pinned');
  await expect(labels(page)).toHaveText([/^k_c /, /^k_b /]);
  await expect(labels(page).first()).toHaveAttribute('data-cgroup', '/sl_B');
  await expect(page.getByRole('button', { name: /^unpin k_c / })).toBeVisible();
  await expect(page.locator('.thread-label.selected .thread-name')).toHaveAttribute('data-task', selectedTask!);
  await expect(page.getByRole('button', { name: /layout: cgroup-shares.layout.toml/ })).toBeVisible();
  await page.screenshot({ path: 'artifacts/replay-share-restored.png', fullPage: true });
});

test('named: a capture too large to bundle is asked for, a wrong file refused, the right one restores the view and the shadow B', async ({ page }) => {
  test.setTimeout(120_000);
  await importA(page, A_DAT);
  await page.getByTestId('shadow-as-b').click();
  await expect(page.getByTestId('ab-b-file')).toHaveText('shadow of trace.dat (baseline)', { timeout: 60_000 });
  await aCanvas(page).click({ position: { x: 500, y: 30 } });
  for (let i = 0; i < 2; i++) await page.keyboard.press('w');
  await page.getByTestId('thread-filter').fill('k_');
  await waitForIdle(page);
  const view = await viewOf(page);

  const url = await takeLink(page);
  await expect(page.getByText(/The link names trace\.dat \(1\.1 MiB\)/)).toBeVisible();
  expect(url.length).toBeLessThan(2000);

  await reopen(page, url);
  const need = page.getByTestId('share-need');
  await expect(need).toHaveCount(1, { timeout: 30_000 });
  await expect(need).toHaveAttribute('data-slot', 'a');
  await expect(need).toContainText(/capture A: trace\.dat \(1\.1 MiB, .* of trace from \d+\.\d{6} s, content hash [0-9a-f]{16}\) — needed/);
  await expect(page.getByTestId('replay-view')).toHaveCount(0);

  // Another capture of the same workload: refused, with what the link wants.
  await page.getByTestId('share-prompt-input').setInputFiles(OTHER_DAT);
  await expect(page.getByTestId('share-error')).toHaveText(/Refused: trace\.dat \(1\.1 MiB\) is not capture A trace\.dat \(1\.1 MiB, .*content hash/);
  await expect(page.getByTestId('replay-view')).toHaveCount(0);

  await page.getByTestId('share-prompt-input').setInputFiles(A_DAT);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('ab-b-file')).toHaveText('shadow of trace.dat (baseline)', { timeout: 60_000 });
  await expect(page.getByTestId('ab-legend')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
  expect(await viewOf(page)).toEqual(view);
  await expect(page.getByTestId('thread-filter')).toHaveValue('k_');
});

test('named: an SMP capture and its CPU-averages dump are both asked for and come back attached', async ({ page }) => {
  test.setTimeout(120_000);
  await importA(page, SMP_DAT);
  await page.getByTestId('trace-input').setInputFiles(SMP_CPU_AVG);
  await expect(page.getByTestId('replay-view')).toContainText('CPU averages cpu-avg.txt');
  const url = await takeLink(page);
  await reopen(page, url);
  // The .dat is too large to bundle, so its dump travels as it does: named.
  const need = page.getByTestId('share-need');
  await expect(need).toHaveCount(2, { timeout: 30_000 });
  await expect(need.nth(1)).toHaveAttribute('data-slot', 'cpuAvg');
  await expect(need.nth(1)).toContainText(/A's CPU-averages dump: cpu-avg\.txt .* — needed/);
  await page.getByTestId('share-prompt-input').setInputFiles([SMP_DAT, SMP_CPU_AVG]);
  await expect(page.getByTestId('replay-view')).toContainText('CPU averages cpu-avg.txt', { timeout: 30_000 });
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
});

test('named: an SMP capture and its balance-pass dump are both asked for and come back attached', async ({ page }) => {
  test.setTimeout(120_000);
  await importA(page, BAL_DAT);
  await page.getByTestId('trace-input').setInputFiles(BAL_DUMP);
  await expect(page.getByTestId('replay-view')).toContainText('balance passes balance.txt');
  const url = await takeLink(page);
  await reopen(page, url);
  const need = page.getByTestId('share-need');
  await expect(need).toHaveCount(2, { timeout: 30_000 });
  await expect(need.nth(1)).toHaveAttribute('data-slot', 'balance');
  await expect(need.nth(1)).toContainText(/A's balance-pass dump: balance\.txt .* — needed/);
  await page.getByTestId('share-prompt-input').setInputFiles([BAL_DAT, BAL_DUMP]);
  await expect(page.getByTestId('replay-view')).toContainText('balance passes balance.txt', { timeout: 30_000 });
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
});

test('a shadow spread travels as its question: the opened link runs it again and shows the same table', async ({ page }) => {
  test.setTimeout(120_000);
  const want = JSON.parse(readFileSync(THREE_HOGS_SPREAD, 'utf8')) as SpreadTable;
  await importA(page, THREE_HOGS);
  await page.getByLabel('spread over').selectOption('tick_phases');
  await page.getByLabel('spread runs').fill('4');
  await page.getByTestId('spread-run').click();
  await expect(page.getByTestId('spread-table')).toBeVisible({ timeout: 60_000 });
  const url = await takeLink(page);
  await expect(page.getByText(/The link names/)).toHaveCount(0);

  await reopen(page, url);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  const table = page.getByTestId('spread-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('spread-title')).toContainText(`(baseline) ${want.under}`);
  for (const r of want.rows) {
    const cells = await table.locator(`tr[data-task="${r.name}"] td`).allTextContents();
    expect(cells).toEqual([r.name, r.observed_cpu_pct.toFixed(2), r.least.toFixed(2), r.mean.toFixed(2), r.most.toFixed(2), r.inside ? 'yes' : 'no']);
  }
  // The controls say what ran.
  await expect(page.getByLabel('spread over')).toHaveValue('tick_phases');
  await expect(page.getByLabel('spread runs')).toHaveValue('4');
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
  await page.getByTestId('shadow-panel').screenshot({ path: 'artifacts/replay-share-spread-restored.png' });
});

test('a corrupted or truncated replay link is shown, not thrown', async ({ page }) => {
  await importA(page, A_TEXT);
  const url = await takeLink(page);
  await reopen(page, url.slice(0, url.length - Math.floor((url.length - url.indexOf('#r1.')) / 2)));
  await expect(page.getByTestId('share-error')).toHaveText(/This link could not be opened: The shared link is (corrupted or cut short|cut short)/, { timeout: 30_000 });
  // The simulated view is there underneath.
  await page.waitForSelector('[data-testid="timeline-block"] canvas');
  await reopen(page, url.replace('#r1.', '#r1.%%'));
  await expect(page.getByTestId('share-error')).toHaveText(/not valid base64url/, { timeout: 30_000 });
  await page.getByTestId('share-dismiss').click();
  await expect(page.getByTestId('share-prompt')).toHaveCount(0);
});

test('cgroups from the trace: the last cgroup_attach_task of a task, a forked child in its parent\'s', async ({ page }) => {
  await importA(page, CGROUPS);
  const filter = page.getByTestId('thread-filter');
  await filter.fill('cgroup:db.service');
  await expect(labels(page)).toHaveCount(2);
  await expect(labels(page).filter({ hasText: /^db 500$/ })).toHaveAttribute('data-cgroup', '/system.slice/db.service');
  // db-worker (502) was forked by db after db's attach: no record attaches it.
  await expect(labels(page).filter({ hasText: /^db-worker 502$/ })).toHaveAttribute('data-cgroup', '/system.slice/db.service');
  // batch was attached to /batch, then moved itself to /batch/low: the last attach.
  await filter.fill('cgroup:/batch');
  await expect(labels(page)).toHaveText(['batch 501']);
  await expect(labels(page).first()).toHaveAttribute('data-cgroup', '/batch/low');
  await filter.fill('cgroup:/batch/high');
  await expect(labels(page)).toHaveCount(0);
  // bash was never attached: `cgroup:` alone keeps only the tasks with a known cgroup.
  await filter.fill('cgroup:');
  await expect(labels(page)).toHaveCount(3);
  await filter.fill('bash');
  await expect(labels(page)).toHaveText(['bash 400']);
  await expect(labels(page).first()).not.toHaveAttribute('data-cgroup', /./);
  // The hover names the cgroup.
  await filter.fill('batch');
  const canvas = page.getByTestId('thread-canvas');
  // Its states fetched and drawn before the pointer comes.
  await waitForIdle(page);
  await expect.poll(async () => Number(await canvas.getAttribute('data-thread-segments'))).toBeGreaterThan(0);
  await expect(canvas).toHaveAttribute('data-thread-tracks', '1');
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + 8);
  await page.mouse.move(box.x + box.width * 0.6, box.y + 10);
  await expect(page.getByTestId('thread-hover')).toHaveText(/^batch 501 \[\/batch\/low\]: /);
});
