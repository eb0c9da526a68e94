// SMP in the browser: the lesson "Load balancing on two CPUs" walked step by step, every
// fact it states (where each task is, CPU time per CPU, migrations by class, placements by
// rule) listed and checked true against the page's own runs, each naming what it checks; and
// a share link of a linux-6.18-smp mirror's view, taken from the Share button, reopens the
// same scenario and view in a fresh context.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { appState, chooseScenario, openApp, waitForIdle } from '../fixtures/app';

interface Fact {
  task?: string;
  cpu?: number;
}
interface Step {
  title: string;
  scenario?: string;
  range: [string, string];
  at: string;
  expect: { on_cpu?: Fact[]; cpu_time?: Fact[]; migrations?: Fact[]; placements?: Fact[]; counts?: Fact[] };
}
interface Lesson {
  id: string;
  title: string;
  scenario: string;
  steps: Step[];
}

const LESSON = JSON.parse(readFileSync(fileURLToPath(new URL('../../lessons/13-load-balancing.json', import.meta.url)), 'utf8')) as Lesson;

function ns(t: string): number {
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s)$/.exec(t);
  if (!m) throw new Error(`bad time ${t}`);
  return Math.round(Number(m[1]) * { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 }[m[2] as 'ns']);
}

async function stepShown(page: Page, i: number) {
  await page.waitForFunction(
    ([id, step]) => {
      const s = window.__schedlab?.state();
      return !!s && s.lesson?.id === id && s.lesson.step === step;
    },
    [LESSON.id, i] as const,
    { timeout: 60_000 },
  );
  await waitForIdle(page);
}

test('the load-balancing lesson: every step shows its SMP facts checked true', async ({ page }) => {
  test.setTimeout(240_000);
  expect(LESSON.steps.length).toBe(4);
  await openApp(page);
  await page.getByRole('button', { name: 'lessons', exact: true }).click();
  await page.getByTestId(`lesson-${LESSON.id}`).click();
  for (let i = 0; i < LESSON.steps.length; i++) {
    const st = LESSON.steps[i];
    const where = `step ${i + 1} (${st.title})`;
    if (i > 0) await page.getByRole('button', { name: 'next step' }).click();
    await stepShown(page, i);
    // The step starts at the top of the drawer (the list was scrolled to reach lesson 13).
    expect(await page.getByTestId('lesson-panel').evaluate((el) => el.scrollTop), where).toBe(0);
    const s = await appState(page);
    expect(s.scenario, where).toBe(st.scenario ?? LESSON.scenario);
    expect(s.window_ns, where).toEqual([ns(st.range[0]), ns(st.range[1])]);
    expect(s.cursor_ns, where).toBe(ns(st.at));
    await expect(page.getByTestId('lesson-step-title')).toHaveText(st.title);
    const checks = page.getByTestId('lesson-checks');
    await expect(checks, where).toHaveAttribute('data-ok', 'true', { timeout: 60_000 });
    // One line per stated fact, each ticked.
    const e = st.expect;
    const n = [e.on_cpu, e.cpu_time, e.migrations, e.placements, e.counts].reduce((a, l) => a + (l?.length ?? 0), 0);
    const items = checks.getByTestId('lesson-check');
    await expect(items, where).toHaveCount(n);
    await expect(checks.locator('[data-testid="lesson-check"][data-ok="false"]'), where).toHaveCount(0);
    // The SMP facts name what they check.
    for (const f of e.on_cpu ?? []) await expect(checks, where).toContainText(`${f.task} is on CPU ${f.cpu}`);
    if (e.cpu_time?.length) await expect(checks, where).toContainText('% of a CPU');
    if (e.migrations?.length) await expect(checks, where).toContainText('migrations');
    if (e.placements?.length) await expect(checks, where).toContainText('placements');
    await page.screenshot({ path: `artifacts/lessons/${LESSON.id}-${i + 1}.png` });
  }
  await expect(page.getByRole('button', { name: 'next step' })).toBeDisabled();
});

test('a share link of a linux-6.18-smp view reopens the same scenario and view', async ({ browser }) => {
  const ctx1 = await browser.newContext();
  const page = await ctx1.newPage();
  await openApp(page);
  await chooseScenario(page, 'linux-6.18-smp/pipe-pair-and-hog');
  // Zoom in, move the cursor onto the pair's CPU lanes and open the inspector.
  await page.keyboard.press('w');
  await page.keyboard.press('w');
  await waitForIdle(page);
  const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.4, box.y + 30);
  await waitForIdle(page);
  if (!(await page.getByTestId('inspector').isVisible())) await page.getByRole('button', { name: 'inspector', exact: true }).click();
  await waitForIdle(page);
  const want = await appState(page);
  expect(want.scenario).toBe('linux-6.18-smp/pipe-pair-and-hog');
  expect(want.panels).toContain('inspector');
  const whyWant = await page.getByTestId('why-pick').evaluateAll((ws) => ws.map((w) => `${w.getAttribute('data-cpu')}:${w.getAttribute('data-picked')}:${w.getAttribute('data-t')}`));
  expect(whyWant.length).toBe(2);
  // The link as the UI gives it: the Share button's box.
  await page.getByTestId('share').click();
  const url = await page.getByLabel('share link').inputValue();
  expect(url).toMatch(/#s1\./);
  expect(url.length).toBeLessThan(2000);
  await ctx1.close();

  const ctx2 = await browser.newContext();
  const page2 = await ctx2.newPage();
  await openApp(page2, url);
  await page2.waitForFunction(() => window.__schedlab!.state().scenario === 'linux-6.18-smp/pipe-pair-and-hog');
  await waitForIdle(page2);
  expect(await appState(page2)).toEqual(want);
  await expect(page2.locator('select[aria-label="scenario"]')).toHaveValue('linux-6.18-smp/pipe-pair-and-hog');
  const whyGot = await page2.getByTestId('why-pick').evaluateAll((ws) => ws.map((w) => `${w.getAttribute('data-cpu')}:${w.getAttribute('data-picked')}:${w.getAttribute('data-t')}`));
  expect(whyGot).toEqual(whyWant);
  await page2.screenshot({ path: 'artifacts/smp-shared-view.png' });
  await ctx2.close();
});
