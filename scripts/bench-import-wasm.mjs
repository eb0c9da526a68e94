// Issue 7's import throughput figure (prints, asserts nothing): the synthetic tracefs trace of
// `schedlab bench-import` (`schedlab gen trace --mb N`: sched_switch, sched_wakeup and
// sched_stat_runtime over 8 CPUs and 600 tasks) imported by the wasm ImportHandle the web worker
// uses, in Node's V8 (Chromium's engine), fed in 4 MiB chunks as the worker feeds File slices;
// then the same natively (`schedlab bench-import`). Run after `npm run build` and
// `cargo build --release -p schedlab-cli`:
//   node scripts/bench-import-wasm.mjs [MiB] [--perfetto]        (default 200)
// With --perfetto: the synthetic trace re-encoded as a Perfetto protobuf trace
// (`schedlab export --perfetto`, regular ftrace events), then `schedlab bench-import --perfetto`.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const perfetto = args.includes('--perfetto');
const mb = Number(args.find((a) => !a.startsWith('--')) ?? 200);
const cli = `${root}target/release/schedlab`;
const text = join(tmpdir(), `schedlab-synthetic-${mb}mb.trace.txt`);
if (!existsSync(text)) writeFileSync(text, execFileSync(cli, ['gen', 'trace', '--mb', String(mb)], { maxBuffer: 2 ** 32 }));
const file = perfetto ? join(tmpdir(), `schedlab-synthetic-${mb}mb.pftrace`) : text;
if (perfetto && !existsSync(file)) execFileSync(cli, ['export', '--perfetto', text, '-o', file]);
const size = statSync(file).size;
const MiB = size / 2 ** 20;

const mod = await import(`${root}web/src/generated/wasm/schedlab_wasm.js`);
const wasm = mod.initSync({ module: readFileSync(`${root}web/src/generated/wasm/schedlab_wasm_bg.wasm`) });
const CHUNK = 4 << 20;
const buf = Buffer.alloc(CHUNK);
const fd = openSync(file, 'r');
const h = new mod.ImportHandle(size);
let feedMs = 0;
const t0 = performance.now();
for (let off = 0; ; ) {
  const n = readSync(fd, buf, 0, CHUNK, off);
  if (n === 0) break;
  off += n;
  const a = performance.now();
  h.feed(buf.subarray(0, n));
  feedMs += performance.now() - a;
}
closeSync(fd);
const a = performance.now();
h.finish();
const finishMs = performance.now() - a;
const b = performance.now();
while (h.step(100_000)) {}
const buildMs = performance.now() - b;
const totalMs = performance.now() - t0;
const r = JSON.parse(h.summary());
const s = r.summary;
console.log(`synthetic ${perfetto ? 'trace as Perfetto protobuf' : 'tracefs trace'}: ${MiB.toFixed(1)} MiB, ${s.lines_read.toLocaleString('en-US')} lines, ${s.total_events.toLocaleString('en-US')} records, ${s.lines_skipped} skipped`);
console.log(`wasm import (parse into the TraceStore): ${((feedMs + finishMs) / 1000).toFixed(3)} s, ${(MiB / ((feedMs + finishMs) / 1000)).toFixed(0)} MiB/s`);
console.log(`wasm replay timeline (spans, wakeup links): ${(buildMs / 1000).toFixed(3)} s, ${r.timeline.spans.toLocaleString('en-US')} spans`);
console.log(`wasm total incl. reading the file: ${(totalMs / 1000).toFixed(3)} s, ${(MiB / (totalMs / 1000)).toFixed(0)} MiB/s`);
console.log(`wasm linear memory after the import: ${(wasm.memory.buffer.byteLength / 2 ** 20).toFixed(0)} MiB (${((wasm.memory.buffer.byteLength / size) * 100).toFixed(0)} % of the trace's size)`);
h.free();
const native = ['bench-import', '--mb', String(mb), ...(perfetto ? ['--perfetto'] : [])];
if (existsSync(cli)) console.log(`native (schedlab ${native.join(' ')}):\n${execFileSync(cli, native).toString().trim()}`);
