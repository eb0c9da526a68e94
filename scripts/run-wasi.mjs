// Runs the `schedlab` CLI compiled for wasm32-wasip1 under Node's WASI, with the repository
// root preopened as "/", so the wasm build can be compared with the native one.
//   node scripts/run-wasi.mjs target/wasm32-wasip1/release/schedlab.wasm simulate scenarios/x.toml --json
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import process from 'node:process';

const [wasmPath, ...args] = process.argv.slice(2);
if (!wasmPath) {
  console.error('usage: node scripts/run-wasi.mjs <schedlab.wasm> <args...>');
  process.exit(2);
}
const wasi = new WASI({
  version: 'preview1',
  args: ['schedlab', ...args],
  env: {},
  preopens: { '.': process.cwd() },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(wasmPath));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
const code = wasi.start(instance);
if (process.env.SCHEDLAB_WASI_STATS) {
  const mib = (n) => (n / 1048576).toFixed(0);
  console.error(`wasi: wasm linear memory ${mib(instance.exports.memory.buffer.byteLength)} MiB, process peak rss ${mib(process.resourceUsage().maxRSS * 1024)} MiB`);
}
process.exitCode = code;
