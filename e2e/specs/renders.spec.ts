// One React render per frame at most: panning with the pointer, zooming with the wheel (several
// events a frame, each its own task, as real input arrives), the navigation keys and playback
// move the view and the cursor in the shell's store, and the worker's replies are folded into
// the next frame's render. React DevTools' global hook, installed before the page loads, counts
// the commits of the root; a rAF loop counts the frames.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { openApp, waitForIdle } from '../fixtures/app';

interface Counts {
  commits: number;
  frames: number;
  on: boolean;
}

declare global {
  interface Window {
    __renders?: Counts;
    __REACT_DEVTOOLS_GLOBAL_HOOK__?: object;
  }
}

async function countRenders(page: Page) {
  await page.addInitScript(() => {
    const counts: Counts = { commits: 0, frames: 0, on: false };
    window.__renders = counts;
    // The hook's interface as react-dom calls it (also in production builds).
    window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      renderers: new Map(),
      inject: () => 1,
      checkDCE: () => undefined,
      onScheduleFiberRoot: () => undefined,
      onCommitFiberRoot: () => {
        if (counts.on) counts.commits++;
      },
      onPostCommitFiberRoot: () => undefined,
      onCommitFiberUnmount: () => undefined,
    };
    const tick = () => {
      if (counts.on) counts.frames++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Runs `act` with the counters on; returns commits and frames. */
async function measure(page: Page, name: string, act: () => Promise<void>): Promise<Counts> {
  await page.evaluate(() => Object.assign(window.__renders!, { commits: 0, frames: 0, on: true }));
  await act();
  // The frame after the last event publishes it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const c = await page.evaluate(() => Object.assign(window.__renders!, { on: false }));
  console.log(`${name}: ${c.commits} commits in ${c.frames} frames (${(c.commits / Math.max(1, c.frames)).toFixed(2)} a frame)`);
  await waitForIdle(page);
  return c;
}

/** Dispatches 3 pointer moves (12 px apart) or wheel events a frame for `frames` frames, each in its own task. */
async function burst(page: Page, kind: 'pointermove' | 'wheel', frames: number, x: number, y: number) {
  await page.evaluate(
    async ({ kind, frames, x, y }) => {
      const el = document.querySelector('[data-testid="timeline-block"]')!.parentElement!;
      for (let f = 0; f < frames; f++) {
        for (let k = 0; k < 3; k++) {
          const i = f * 3 + k;
          el.dispatchEvent(
            kind === 'pointermove'
              ? new PointerEvent('pointermove', { pointerId: 1, clientX: x - i * 12, clientY: y, bubbles: true })
              : new WheelEvent('wheel', { deltaY: f < frames / 2 ? -40 : 40, clientX: x, clientY: y, bubbles: true, cancelable: true }),
          );
          await new Promise((r) => setTimeout(r, 0));
        }
        await new Promise((r) => requestAnimationFrame(r));
      }
    },
    { kind, frames, x, y },
  );
}

test('at most one render a frame while panning, zooming, pressing keys and playing', async ({ page }) => {
  await countRenders(page);
  await openApp(page);
  const box = (await page.locator('[data-testid="timeline-block"] canvas').first().boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + 20;
  const w0 = (await page.evaluate(() => window.__schedlab!.state())).window_ns;

  const runs: Counts[] = [];
  runs.push(
    await measure(page, 'drag pan, 3 moves a frame', async () => {
      await page.mouse.move(x, y);
      await page.mouse.down();
      await burst(page, 'pointermove', 60, x, y);
      await page.mouse.up();
    }),
  );
  const w1 = (await page.evaluate(() => window.__schedlab!.state())).window_ns;
  // The drag moved the view by far more than half a window: windows were fetched meanwhile.
  expect(w1[0] - w0[0]).toBeGreaterThan((w0[1] - w0[0]) * 1.5);
  runs.push(await measure(page, 'wheel zoom, 3 events a frame', () => burst(page, 'wheel', 30, x, y)));
  runs.push(
    await measure(page, 'keys', async () => {
      for (let i = 0; i < 30; i++) await page.keyboard.press(i % 2 ? 'a' : 'd');
    }),
  );
  await page.selectOption('select[aria-label="speed"]', '10000000');
  runs.push(
    await measure(page, 'playback 1 s at 10 ms/s', async () => {
      await page.getByRole('button', { name: 'play' }).click();
      await page.waitForTimeout(1000);
      await page.getByRole('button', { name: 'pause' }).click();
    }),
  );
  for (const r of runs) {
    expect(r.commits).toBeGreaterThan(0);
    // The measure can start mid-frame: one commit of slack.
    expect(r.commits).toBeLessThanOrEqual(r.frames + 1);
  }
});
