// Small helpers over the protocol's typed-array columns: grouping row indices by a key column
// (CPU or task) with each group ordered by time, without allocating per row.

import { GROUP_NODE } from '../engine/protocol';

/** Row indices grouped by key: group g is `order[start[g] .. start[g + 1]]`, sorted by `time`. */
export interface Groups {
  order: Int32Array;
  start: Int32Array;
}

/** Groups rows by `key` (rows with key ≥ groups are dropped), each group ordered by `time`. */
export function groupBy(key: Uint32Array, time: Float64Array, groups: number): Groups {
  const start = new Int32Array(groups + 1);
  const n = key.length;
  for (let i = 0; i < n; i++) if (key[i] < groups) start[key[i] + 1]++;
  for (let g = 0; g < groups; g++) start[g + 1] += start[g];
  const fill = start.slice(0, groups);
  const order = new Int32Array(start[groups]);
  for (let i = 0; i < n; i++) if (key[i] < groups) order[fill[key[i]]++] = i;
  for (let g = 0; g < groups; g++) {
    const rows = order.subarray(start[g], start[g + 1]);
    let sorted = true;
    for (let j = 1; j < rows.length && sorted; j++) sorted = time[rows[j - 1]] <= time[rows[j]];
    if (!sorted) rows.sort((a, b) => time[a] - time[b]);
  }
  return { order, start };
}

/**
 * Within group rows `order[lo .. hi)`, the position of the last row with time ≤ t, or lo − 1
 * when every row is later than t.
 */
export function lastAtOrBefore(order: Int32Array, time: Float64Array, lo: number, hi: number, t: number): number {
  let a = lo;
  let b = hi - 1;
  let found = lo - 1;
  while (a <= b) {
    const mid = (a + b) >> 1;
    if (time[order[mid]] <= t) {
      found = mid;
      a = mid + 1;
    } else b = mid - 1;
  }
  return found;
}

const groupCache = new WeakMap<Uint32Array, { time: Float64Array; groups: number; out: Groups }>();

/**
 * groupBy, remembered per key column: the same window data is painted many times while the
 * view moves (the data only changes when a new window arrives), so it is grouped once.
 */
export function groupByCached(key: Uint32Array, time: Float64Array, groups: number): Groups {
  const hit = groupCache.get(key);
  if (hit && hit.time === time && hit.groups === groups) return hit.out;
  const out = groupBy(key, time, groups);
  groupCache.set(key, { time, groups, out });
  return out;
}

const keyCache = new WeakMap<Uint32Array, { nTasks: number; out: Uint32Array }>();

/**
 * The sample key column with group nodes (GROUP_NODE | tg) folded in
 * after the tasks: task ids stay, group node tg becomes nTasks + tg. Without group nodes the
 * column itself is returned (so groupByCached keeps hitting its cache).
 */
export function entityKeys(task: Uint32Array, nTasks: number): Uint32Array {
  const hit = keyCache.get(task);
  if (hit && hit.nTasks === nTasks) return hit.out;
  let out = task;
  for (let i = 0; i < task.length; i++) {
    if (task[i] < GROUP_NODE) continue;
    out = task.map((k) => (k >= GROUP_NODE ? nTasks + (k - GROUP_NODE) : k));
    break;
  }
  keyCache.set(task, { nTasks, out });
  return out;
}
