// KVM: the overlay on the CPU lanes (IPI arrows with their latency, directed-yield arrows,
// pause-loop-exit ticks) and the guest-progress columns of the metrics table.
import { expect, test, type Page } from '@playwright/test';
import { chooseScenario, openApp, waitForIdle } from '../fixtures/app';

const canvas = (page: Page) => page.locator('[data-testid="timeline-block"] canvas').first();
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');

test('ipi-pipeline: IPI arrows, pause-loop exits and directed yields are drawn; metrics show guest ops', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/ipi-pipeline');
  const table = page.getByTestId('metrics-table');
  await expect(table.locator('th', { hasText: 'guest ops' })).toHaveCount(1);
  await expect(table.locator('th', { hasText: 'PLE exits' })).toHaveCount(1);
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  // Markers are sent for zoomed-in windows only: zoom in until the IPIs show.
  for (let i = 0; i < 12 && (await attr(page, 'data-ipi-arrows')) === 0; i++) {
    await page.keyboard.press('w');
    await waitForIdle(page);
  }
  expect(await attr(page, 'data-ipi-arrows')).toBeGreaterThan(0);
  await page.screenshot({ path: 'artifacts/kvm-ipi-arrows.png' });
  // Pause-loop exits come with the ticks that preempt a vCPU of the pair: pan through the run.
  let ple = await attr(page, 'data-ple-exits');
  for (let i = 0; i < 40 && ple === 0; i++) {
    await page.keyboard.press('d');
    await waitForIdle(page);
    ple = await attr(page, 'data-ple-exits');
  }
  expect(ple).toBeGreaterThan(0);
});

test('lock-holder-preemption: lock hold strips; directed-yield arrows carry the reason kvm_vcpu_on_spin() chose the target', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/lock-holder-preemption');
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  await waitForIdle(page);
  let arrows = await attr(page, 'data-yield-arrows');
  for (let i = 0; i < 60 && arrows === 0; i++) {
    await page.keyboard.press('d');
    await waitForIdle(page);
    arrows = await attr(page, 'data-yield-arrows');
  }
  expect(arrows).toBeGreaterThan(0);
  expect(await attr(page, 'data-yield-reasons')).toBeGreaterThan(0);
  // The guest lock's hold strips (the lock is taken tens of thousands of times a second).
  expect(await attr(page, 'data-lock-holds')).toBeGreaterThan(0);
  // Waiters burning CPU in their spin-waits.
  expect(await attr(page, 'data-spin-bands')).toBeGreaterThan(0);
  await page.screenshot({ path: 'artifacts/kvm-yield-reasons.png' });
});
