// A share link restores exactly the same view in a fresh browser context.
import { expect, test } from '../fixtures/test';
import { appState, chooseScenario, openApp, waitForIdle } from '../fixtures/app';

test('share link round-trips the view with two variants', async ({ browser }) => {
  const ctx1 = await browser.newContext();
  const page = await ctx1.newPage();
  await openApp(page);
  await chooseScenario(page, 'linux-6.18/yield-vs-hog');
  await page.locator('.variants summary').click();
  await page.getByLabel('yield-6.18.0').click();
  await page.waitForFunction(() => window.__schedlab!.state().variants.length === 2);
  await waitForIdle(page);
  await expect(page.locator('[data-testid="timeline-block"]')).toHaveCount(2);
  await page.locator('.variants summary').click(); // close the menu
  await page.keyboard.press('w');
  await page.keyboard.press('d');
  await waitForIdle(page);
  const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.5, box.y + 30);
  await waitForIdle(page);
  const want = await appState(page);
  const url = await page.evaluate(() => window.__schedlab!.shareUrl());
  expect(url.length).toBeLessThan(2000);
  await ctx1.close();

  const ctx2 = await browser.newContext();
  const page2 = await ctx2.newPage();
  await openApp(page2, url);
  await page2.waitForFunction(() => window.__schedlab!.state().variants.length === 2);
  await waitForIdle(page2);
  const got = await appState(page2);
  expect(got).toEqual(want);
  await page2.screenshot({ path: 'artifacts/shared-view.png' });
  await ctx2.close();
});

test('a malformed link is refused with a message and the default scenario opens', async ({ page }) => {
  await openApp(page, './#s1.not-valid-base64!!');
  await expect(page.locator('.notice')).toContainText('could not be opened');
  expect((await appState(page)).scenario).toBe('gallery/sleeper-vs-hog');
});
