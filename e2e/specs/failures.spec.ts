// Failures of the page itself are shown in it: the engine worker's script failing to load
// (EngineClient.onFailure), an uncaught error and an unhandled rejection all put a dismissable
// alert under the header, and the page keeps answering: nothing waits forever on a worker that
// is gone. Each spec allows exactly the problems it provokes (fixtures/test.ts).
import { expect, test } from '../fixtures/test';
import { waitForIdle } from '../fixtures/app';

test.describe('the engine worker cannot be loaded', () => {
  // What Chromium may log for the worker script's 500 (Debian's does not, today).
  test.use({ allowedPageProblems: /^console error: Failed to load resource: the server responded with a status of 500/ });

  test('the page says so, and stays usable', async ({ page }) => {
    await page.route(/\/assets\/engine\.worker-[^/]*\.js$/, (route) => route.fulfill({ status: 500, contentType: 'text/plain', body: 'broken deploy' }));
    await page.goto('./');
    const banner = page.getByTestId('page-error');
    await expect(banner).toBeVisible();
    await expect(banner).toHaveAttribute('role', 'alert');
    await expect(banner).toContainText('the engine worker failed');
    await expect(page.locator('.empty')).toContainText('The engine is not running');
    // Nothing is left waiting on the worker; a new load is refused at once, not left pending,
    // and is not taken for a scenario error.
    await waitForIdle(page);
    await page.selectOption('select[aria-label="scenario"]', 'gallery/nice-ladder');
    await waitForIdle(page);
    await expect(page.locator('[data-testid="scenario-error"]')).toHaveCount(0);
    await expect(page.locator('span.progress[role="progressbar"]')).toHaveCount(0);
    // The rest of the page still answers; the alert can be dismissed.
    await page.keyboard.press('?');
    await expect(page.getByRole('dialog', { name: 'keyboard help' })).toBeVisible();
    await page.keyboard.press('Escape');
    await banner.getByRole('button', { name: 'dismiss' }).click();
    await expect(banner).toHaveCount(0);
  });
});

test.describe('an uncaught error and an unhandled rejection', () => {
  test.use({ allowedPageProblems: /^page error: .*(thrown|rejected) by the failures spec/ });

  test('each shows in the page', async ({ page, pageProblems }) => {
    await page.goto('./');
    await waitForIdle(page);
    const banner = page.getByTestId('page-error');
    await expect(banner).toHaveCount(0);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('thrown by the failures spec');
      }, 0);
    });
    await expect(banner).toContainText('thrown by the failures spec');
    await banner.getByRole('button', { name: 'dismiss' }).click();
    await expect(banner).toHaveCount(0);
    await page.evaluate(() => {
      void Promise.reject(new Error('rejected by the failures spec'));
    });
    await expect(banner).toContainText('rejected by the failures spec');
    expect(pageProblems).toHaveLength(2);
    // The app itself is untouched: its timeline is there and moves.
    await expect(page.locator('[data-testid="timeline-block"] canvas')).toHaveCount(1);
  });
});
