// Issue 7's browser import figure (prints, asserts nothing): a 1 GiB synthetic tracefs trace
// (`schedlab gen trace --mb 1024`, written to a temporary file) imported in headless Chromium
// through the app's file input, as a user would: time to the replay view, and peak memory:
// the wasm linear memory (it only grows, so its final size is its peak), the page's JS heap
// (CDP Performance.getMetrics, sampled), and the peak resident set (VmHWM) of Chromium's
// renderer processes (the page and its engine worker live there) from /proc. Run after
// `npm run build` and `cargo build --release -p schedlab-cli`:
//   node scripts/bench-import-browser.mjs [MiB]     (default 1024)
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const mb = Number(process.argv[2] ?? 1024);
const PORT = Number(process.env.BENCH_PORT ?? 4176);
const base = `http://127.0.0.1:${PORT}/`;
const file = join(tmpdir(), `schedlab-synthetic-${mb}mb.trace.txt`);
if (!existsSync(file)) writeFileSync(file, execFileSync(`${root}target/release/schedlab`, ['gen', 'trace', '--mb', String(mb)], { maxBuffer: 2 ** 32 }));
const size = statSync(file).size;

/** Descendant pids of `pid` (from /proc). */
function descendants(pid) {
  const kids = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch {}
  }
  const out = [];
  const walk = (p) => (kids.get(p) ?? []).forEach((k) => (out.push(k), walk(k)));
  walk(pid);
  return out;
}

/** Peak RSS (VmHWM, KiB) of the renderer processes under `pid`. */
function rendererPeakKiB(pid) {
  let peak = 0;
  for (const p of descendants(pid)) {
    try {
      if (!readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {}
  }
  return peak;
}

const server = spawn('node', [`${root}node_modules/vite/bin/vite.js`, 'preview', '--config', `${root}web/vite.config.ts`, '--port', String(PORT), '--host', '127.0.0.1', '--strictPort'], { stdio: 'ignore' });
try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  // A local launch (setInputFiles then hands Chromium the path; nothing is uploaded); the
  // marker finds the browser process in /proc.
  const marker = `--schedlab-bench=${process.pid}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', marker],
  });
  const bpid = Number(
    readdirSync('/proc').find((d) => {
      try {
        return /^\d+$/.test(d) && readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(marker) && !readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=');
      } catch {
        return false;
      }
    }),
  );
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(base);
  await page.waitForFunction(() => !!window.__schedlab);
  await page.evaluate(() => window.__schedlab.waitForIdle());
  const before = rendererPeakKiB(bpid);
  let heapPeak = 0;
  let wasmBytes = 0;
  const sample = async () => {
    const m = await cdp.send('Performance.getMetrics');
    heapPeak = Math.max(heapPeak, m.metrics.find((x) => x.name === 'JSHeapUsedSize')?.value ?? 0);
    wasmBytes = Math.max(wasmBytes, (await page.evaluate(() => window.__schedlab.workerStats())).wasmMemoryBytes);
  };
  const t0 = performance.now();
  await page.locator('[data-testid="trace-input"]').setInputFiles(file);
  let firstProgress = 0;
  for (;;) {
    await sample();
    if (!firstProgress && (await page.locator('[data-testid="import-progress"]').count())) firstProgress = performance.now() - t0;
    if (await page.locator('[data-testid="replay-view"]').count()) break;
    if (await page.locator('[data-testid="import-error"]').count()) throw new Error(await page.locator('[data-testid="import-error"]').textContent());
    await new Promise((r) => setTimeout(r, 250));
  }
  const imported = performance.now() - t0;
  await page.evaluate(() => window.__schedlab.waitForIdle());
  const lanes = performance.now() - t0;
  await sample();
  const ds = await page.locator('[data-testid="replay-canvas"]').evaluate((c) => ({ ...c.dataset }));
  const events = await page.locator('[data-testid="diagnostics"] [data-key="events"] dd').textContent();
  const GiB = (b) => (b / 2 ** 30).toFixed(2);
  const MiB = (b) => (b / 2 ** 20).toFixed(0);
  console.log(`browser import of a ${MiB(size)} MiB synthetic tracefs trace (headless Chromium, file input): ${events}`);
  console.log(`  progress bar after ${(firstProgress / 1000).toFixed(2)} s; replay view after ${(imported / 1000).toFixed(1)} s (${(size / 2 ** 20 / (imported / 1000)).toFixed(0)} MiB/s); first lanes painted after ${(lanes / 1000).toFixed(1)} s (${ds.spansDrawn} spans drawn of ${ds.spansInWindow} in the window, paint ${ds.paintMs} ms)`);
  console.log(`  wasm linear memory: ${MiB(wasmBytes)} MiB (${GiB(wasmBytes)} GiB; ${((wasmBytes / size) * 100).toFixed(0)} % of the trace)`);
  console.log(`  page JS heap (JSHeapUsedSize), sampled peak: ${MiB(heapPeak)} MiB`);
  console.log(`  renderer peak RSS (VmHWM, page + worker): ${MiB(rendererPeakKiB(bpid) * 1024)} MiB (${MiB(before * 1024)} MiB before the import)`);
  await browser.close();
} finally {
  server.kill();
}
