// Lessons: walk every step of every lesson (read from the repository's lessons/*.json) and
// check that each renders what it claims — the view's window and cursor are the step's, its
// entities are highlighted in every timeline block, the inspector's "why this pick" names the
// stated winner, reason, buddy source and eligibility at the stated level, and every fact the
// step states is checked true against the browser's own runs; the knob runs beside the lesson
// and "Back to the lesson" restores it. A step link reopens the step in a fresh page.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { appState, openApp, waitForIdle } from '../fixtures/app';

interface Expect {
  variant?: string;
  cpu?: number;
  level?: string;
  picked?: string;
  reason?: string;
  buddy?: string;
  eligible?: string[];
  not_eligible?: string[];
}
interface Step {
  title: string;
  highlight?: string[];
  range: [string, string];
  at: string;
  cpu?: number;
  variants?: string[];
  try?: { knob: string; values: string[]; expect?: Expect };
  expect: Expect;
}
interface Lesson {
  id: string;
  title: string;
  steps: Step[];
}

const dir = fileURLToPath(new URL('../../lessons/', import.meta.url));
const LESSONS: Lesson[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(dir + f, 'utf8')) as Lesson);

/** "12ms" → ns (the lessons' grammar: a number and a unit). */
function ns(t: string): number {
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s)$/.exec(t);
  if (!m) throw new Error(`bad time ${t}`);
  return Math.round(Number(m[1]) * { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 }[m[2] as 'ns']);
}

/** The pick name the inspector shows for a lesson name (cgroup paths in brackets). */
const shown = (n: string) => (n.startsWith('/') ? `[${n}]` : n);

async function stepShown(page: Page, l: Lesson, i: number) {
  const st = l.steps[i];
  const keys = st.variants?.length ? st.variants : ['baseline'];
  await page.waitForFunction(
    ([id, step, keys]) => {
      const s = window.__schedlab?.state();
      return !!s && s.lesson?.id === id && s.lesson.step === step && s.variants.map((v) => v.key).join(',') === keys;
    },
    [l.id, i, keys.join(',')] as const,
    { timeout: 30_000 },
  );
  await waitForIdle(page);
}

/** Checks what step `i` of `l` claims, as rendered. */
async function checkStep(page: Page, l: Lesson, i: number) {
  const st = l.steps[i];
  const where = `${l.id} step ${i + 1} (${st.title})`;
  const s = await appState(page);
  expect(s.window_ns, where).toEqual([ns(st.range[0]), ns(st.range[1])]);
  expect(s.cursor_ns, where).toBe(ns(st.at));
  await expect(page.getByTestId('lesson-step-title')).toHaveText(st.title);
  await expect(page.getByTestId('lesson-progress')).toHaveText(`step ${i + 1} of ${l.steps.length}`);
  // Every highlighted entity has an outlined lane in every block.
  const blocks = await page.getByTestId('timeline-block').count();
  for (const h of st.highlight ?? []) {
    await expect(page.locator(`[data-testid="lane-highlight"][data-entity="${h}"]`), `${where}: ${h}`).toHaveCount(blocks);
  }
  // The step's facts, checked by the page against its own runs: all hold.
  const checks = page.getByTestId('lesson-checks');
  await expect(checks, where).toHaveAttribute('data-ok', 'true', { timeout: 30_000 });
  expect(await checks.getByTestId('lesson-check').count(), where).toBeGreaterThan(0);
  // The inspector's "why this pick" says the same as the stated pick.
  await checkWhy(page, st.expect, keys(st)[0], st.cpu ?? 0, where);
}

const keys = (st: Step) => (st.variants?.length ? st.variants : ['baseline']);

async function checkWhy(page: Page, e: Expect, variant: string, cpu: number, where: string) {
  if (e.picked === undefined && e.reason === undefined && !e.eligible?.length && !e.not_eligible?.length) return;
  const why = page.locator(`[data-testid="why-pick"][data-variant="${e.variant ?? variant}"][data-cpu="${e.cpu ?? cpu}"]`);
  await expect(why, where).toHaveCount(1);
  const levels = why.getByTestId('why-level');
  const n = await levels.count();
  let level = levels.nth(n - 1);
  if (e.level !== undefined) {
    const name = e.level === '/' ? 'the root cfs_rq' : `the cfs_rq of ${e.level}`;
    level = why.locator(`[data-testid="why-level"][data-level="${name}"]`);
  }
  await expect(level, where).toHaveCount(1);
  if (e.picked !== undefined) await expect(level, where).toHaveAttribute('data-picked', shown(e.picked));
  if (e.reason !== undefined) await expect(level, where).toHaveAttribute('data-reason', e.reason);
  if (e.buddy !== undefined) await expect(level, where).toHaveAttribute('data-buddy', e.buddy);
  const eligible = ((await level.getAttribute('data-eligible')) ?? '').split('|');
  const ineligible = ((await level.getAttribute('data-ineligible')) ?? '').split('|');
  for (const x of e.eligible ?? []) expect(eligible, `${where}: ${x} eligible`).toContain(shown(x));
  for (const x of e.not_eligible ?? []) expect(ineligible, `${where}: ${x} not eligible`).toContain(shown(x));
}

/** Runs the step's knob beside it, checks its facts, and goes back to the lesson. */
async function tryKnob(page: Page, l: Lesson, i: number) {
  const st = l.steps[i];
  if (!st.try) return;
  const where = `${l.id} step ${i + 1} knob`;
  const key = `${st.try.knob}=${st.try.values[0]}`;
  await page.getByTestId('lesson-try-run').click();
  await page.waitForFunction((k) => window.__schedlab?.state().variants.some((v) => v.key === k), key, { timeout: 30_000 });
  await waitForIdle(page);
  await expect(page.locator(`[data-testid="timeline-block"][data-variant="${key}"]`), where).toHaveCount(1);
  if (st.try.expect) {
    await expect(page.getByTestId('lesson-try-checks'), where).toHaveAttribute('data-ok', 'true', { timeout: 30_000 });
    await checkWhy(page, st.try.expect, key, st.cpu ?? 0, where);
  }
  await page.getByTestId('lesson-back').click();
  await stepShown(page, l, i);
  expect((await appState(page)).variants.map((v) => v.key), where).toEqual(keys(st));
}

async function walk(page: Page, lessons: Lesson[]) {
  await openApp(page);
  await page.getByRole('button', { name: 'lessons', exact: true }).click();
  for (const l of lessons) {
    const panel = page.getByTestId('lesson-panel');
    if ((await panel.getAttribute('data-lesson')) !== '') await panel.getByRole('button', { name: '← all lessons' }).click();
    await page.getByTestId(`lesson-${l.id}`).click();
    for (let i = 0; i < l.steps.length; i++) {
      if (i > 0) await page.getByRole('button', { name: 'next step' }).click();
      await stepShown(page, l, i);
      await checkStep(page, l, i);
      await page.screenshot({ path: `artifacts/lessons/${l.id}-${i + 1}.png` });
      await tryKnob(page, l, i);
    }
    await expect(page.getByRole('button', { name: 'next step' })).toBeDisabled();
  }
}

test('lessons 1–6: every step renders what it claims', async ({ page }) => {
  test.setTimeout(180_000);
  await walk(page, LESSONS.slice(0, 6));
});

test('lessons 7–12: every step renders what it claims', async ({ page }) => {
  test.setTimeout(180_000);
  expect(LESSONS.length).toBeGreaterThanOrEqual(12);
  await walk(page, LESSONS.slice(6, 12));
});

test('lessons 13 on: every step renders what it claims', async ({ page }) => {
  test.setTimeout(240_000);
  expect(LESSONS.length).toBeGreaterThanOrEqual(13);
  await walk(page, LESSONS.slice(12));
});

test('a step link reopens the step; keys move between steps', async ({ page, browser }) => {
  await openApp(page);
  await page.keyboard.press('l');
  await expect(page.getByTestId('lesson-panel')).toBeVisible();
  const l = LESSONS.find((x) => x.id === 'lca-penalty-debate')!;
  await page.getByTestId(`lesson-${l.id}`).click();
  await stepShown(page, l, 0);
  await page.keyboard.press('.');
  await stepShown(page, l, 1);
  await page.keyboard.press('.');
  await stepShown(page, l, 2);
  await page.keyboard.press(',');
  await stepShown(page, l, 1);
  // Panning away leaves the step; "Back to the lesson" returns to its window.
  await page.keyboard.press('d');
  await waitForIdle(page);
  expect((await appState(page)).window_ns[0]).toBeGreaterThan(ns(l.steps[1].range[0]));
  await page.getByTestId('lesson-reset').click();
  await waitForIdle(page);
  expect((await appState(page)).window_ns).toEqual([ns(l.steps[1].range[0]), ns(l.steps[1].range[1])]);
  await page.keyboard.press('d');
  await waitForIdle(page);
  // The step's link is the step's own view, wherever the view is now.
  await page.getByTestId('lesson-copy-link').click();
  const url = await page.getByTestId('lesson-link').inputValue();
  expect(url.length).toBeLessThan(2000);

  const fresh = await (await browser.newContext()).newPage();
  await fresh.goto(url);
  await waitForIdle(fresh);
  await stepShown(fresh, l, 1);
  await checkStep(fresh, l, 1);
  await expect(fresh.getByTestId('lesson-panel')).toHaveAttribute('data-step', '1');
  await fresh.screenshot({ path: 'artifacts/lessons/link-reopened.png' });
  // The help overlay lists the lesson keys.
  await fresh.keyboard.press('?');
  await expect(fresh.getByRole('dialog', { name: 'keyboard help' })).toContainText('previous / next lesson step');
});
