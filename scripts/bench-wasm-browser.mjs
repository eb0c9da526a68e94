// Engine throughput in the browser (prints figures; asserts nothing): benchmark (b) of
// `schedlab bench` (64 CPUs x 512 sleepers, full observation log) natively and in headless
// Chromium, with the browser's own wasm module (web/src/generated/wasm, built by
// `bash scripts/build-wasm.sh` or `npm run build`). Run after `cargo build --release -p schedlab-cli`:
//   node scripts/bench-wasm-browser.mjs [SECONDS]
// Each browser run is a fresh page: its first simulation pays V8's tier-up (functions start in
// Liftoff and are recompiled by TurboFan once hot) and the growth of fresh linear memory; a
// second simulation in the same page runs compiled code in memory already grown. Native runs
// are `schedlab bench FILE` (one process each, its in-process wall time).
// With `--steps N` each simulation runs as N calls of run_until over equal slices of simulated
// time (as the web worker runs it, in steps) and the median time of each slice is printed for
// the first and the second run: where the first run loses its time (V8's tier-up shows as slow
// early slices; memory first touched shows as slow slices throughout).
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const stepsAt = args.indexOf('--steps');
const steps = stepsAt >= 0 ? Number(args.splice(stepsAt, 2)[1]) : 0;
const seconds = Number(args[0] ?? 5);
const RUNS = 5;
const cli = `${root}target/release/schedlab`;
const text = execFileSync(cli, ['gen', 'bench-b', '--seconds', String(seconds)]).toString();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function native() {
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-b-'));
  const file = join(dir, 'b.toml');
  writeFileSync(file, text);
  const walls = [];
  let digest = '';
  let events = 0;
  for (let i = 0; i < RUNS; i++) {
    const line = execFileSync(cli, ['bench', file]).toString();
    walls.push(Number(/wall=([\d.]+)s/.exec(line)[1]));
    digest = /digest=([0-9a-f]+)/.exec(line)[1];
    events = Number(/queue_events=(\d+)/.exec(line)[1]);
  }
  rmSync(dir, { recursive: true });
  return { wall: median(walls), digest, events };
}

async function browser() {
  const gen = `${root}web/src/generated/wasm/`;
  const files = {
    '/': ['text/html', Buffer.from('<!doctype html><title>bench</title>')],
    '/schedlab_wasm.js': ['text/javascript', readFileSync(`${gen}schedlab_wasm.js`)],
    '/schedlab_wasm_bg.wasm': ['application/wasm', readFileSync(`${gen}schedlab_wasm_bg.wasm`)],
  };
  const server = http.createServer((req, res) => {
    const f = files[req.url];
    res.writeHead(f ? 200 : 404, f ? { 'content-type': f[0] } : {});
    res.end(f ? f[1] : undefined);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/`;
  const b = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const first = [];
  const second = [];
  const slices = [[], []];
  let digest = '';
  let version = '';
  try {
    version = b.version();
    for (let i = 0; i < RUNS; i++) {
      const ctx = await b.newContext();
      const page = await ctx.newPage();
      await page.goto(base);
      const r = await page.evaluate(async ([text, seconds, steps]) => {
        const mod = await import('/schedlab_wasm.js');
        await mod.default({ module_or_path: '/schedlab_wasm_bg.wasm' });
        const out = [];
        for (let k = 0; k < 2; k++) {
          const h = new mod.SimHandle();
          const loaded = JSON.parse(h.load('b.toml', text, '[]'));
          if (loaded.kind !== 'loaded') throw new Error(JSON.stringify(loaded));
          const t0 = performance.now();
          const sliceMs = [];
          for (let j = 1; j <= steps; j++) {
            const s0 = performance.now();
            h.run_until((seconds * 1e9 * j) / steps);
            sliceMs.push(performance.now() - s0);
          }
          h.run_until(1e18);
          out.push([(performance.now() - t0) / 1000, h.digest(), sliceMs]);
          h.free();
        }
        return out;
      }, [text, seconds, steps]);
      r.forEach(([, , sliceMs], k) => slices[k].push(sliceMs));
      first.push(r[0][0]);
      second.push(r[1][0]);
      digest = r[0][1];
      await ctx.close();
    }
  } finally {
    await b.close();
    server.close();
  }
  const sliceMedians = (runs) => (runs[0] ?? []).map((_, j) => median(runs.map((ms) => ms[j])));
  return { first: median(first), second: median(second), digest, version, slices: slices.map(sliceMedians) };
}

const n = native();
const w = await browser();
const rate = (s) => `${((n.events / s) / 1e6).toFixed(2)} M events/s`;
console.log(`benchmark (b): 64 CPUs x 512 sleepers, ${seconds} s simulated, full log, ${n.events} queue events; medians of ${RUNS}`);
console.log(`  native: ${n.wall.toFixed(3)} s (${rate(n.wall)})`);
console.log(`  Chromium ${w.version}, first run in a fresh page: ${w.first.toFixed(3)} s (${rate(w.first)}) → wasm/native ${(n.wall / w.first).toFixed(2)}`);
console.log(`  Chromium, second run in the same page: ${w.second.toFixed(3)} s (${rate(w.second)}) → wasm/native ${(n.wall / w.second).toFixed(2)}`);
console.log(`  digests ${n.digest === w.digest ? 'identical' : `DIFFER: native ${n.digest}, wasm ${w.digest}`}`);
if (steps > 0) {
  const row = (ms) => ms.map((x) => x.toFixed(0).padStart(4)).join('');
  console.log(`  ms per ${(seconds / steps).toFixed(2)} s simulated, medians (first run, then second run):`);
  console.log(`    first: ${row(w.slices[0])}`);
  console.log(`    second:${row(w.slices[1])}`);
}
