// LatestQuery: one request in flight, the latest waiting one next, failures handled.
import { describe, expect, it } from 'vitest';
import { LatestQuery } from './latest_query';

function harness() {
  const calls: { args: number; resolve: (r: string) => void; reject: (e: Error) => void }[] = [];
  const replies: string[] = [];
  const errors: string[] = [];
  const q = new LatestQuery<number, string>(
    (args) => new Promise((resolve, reject) => calls.push({ args, resolve, reject })),
    (r, a) => replies.push(`${a}:${r}`),
    (m, a) => errors.push(`${a}:${m}`),
  );
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return { q, calls, replies, errors, tick };
}

describe('LatestQuery', () => {
  it('runs one request at a time and only the latest of those made meanwhile', async () => {
    const h = harness();
    h.q.request(1);
    h.q.request(2);
    h.q.request(3);
    expect(h.calls.map((c) => c.args)).toEqual([1]);
    h.calls[0].resolve('a');
    await h.tick();
    expect(h.replies).toEqual(['1:a']);
    expect(h.calls.map((c) => c.args)).toEqual([1, 3]);
    h.calls[1].resolve('c');
    await h.tick();
    expect(h.replies).toEqual(['1:a', '3:c']);
  });

  it('hands a failure to its handler and carries on', async () => {
    const h = harness();
    h.q.request(1);
    h.q.request(2);
    h.calls[0].reject(new Error('stale run'));
    await h.tick();
    expect(h.errors).toEqual(['1:stale run']);
    h.calls[1].resolve('b');
    await h.tick();
    expect(h.replies).toEqual(['2:b']);
  });

  it('ignores what was in flight after drop()', async () => {
    const h = harness();
    h.q.request(1);
    h.q.request(2);
    h.q.drop();
    h.calls[0].resolve('a');
    await h.tick();
    expect(h.replies).toEqual([]);
    h.q.request(4);
    expect(h.calls.map((c) => c.args)).toEqual([1, 4]);
  });
});
