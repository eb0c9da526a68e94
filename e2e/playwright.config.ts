// Playwright e2e config: Debian's Chromium (no browser download here), a pinned viewport and
// device scale, against the built site served by `vite preview`.
import { defineConfig } from '@playwright/test';

/** The preview server's port (E2E_PORT when several checkouts test on one machine). */
const PORT = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: './specs',
  outputDir: './artifacts/results',
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--force-device-scale-factor=1',
        '--font-render-hinting=none',
        '--js-flags=--random-seed=1',
      ],
    },
  },
  webServer: {
    command: `node ../node_modules/vite/bin/vite.js preview --config ../web/vite.config.ts --port ${PORT} --host 127.0.0.1 --strictPort`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
