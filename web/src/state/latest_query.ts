// One request at a time, the latest next: for queries that follow something moving (the
// cursor's runqueue during playback, the record under the pointer). A request made while one
// runs replaces the one waiting, so the worker never queues more than one of them. Every reply
// and every failure reaches a handler; drop() ignores what is in flight.

import { errorMessage } from '../base/errors';

export class LatestQuery<A, R> {
  private busy = false;
  private waiting: { args: A } | null = null;
  private gen = 0;

  constructor(
    private readonly run: (args: A) => Promise<R>,
    private readonly onReply: (reply: R, args: A) => void,
    private readonly onError: (message: string, args: A) => void,
  ) {}

  request(args: A): void {
    if (this.busy) this.waiting = { args };
    else this.start(args);
  }

  /** Forgets the waiting request and ignores the one in flight. */
  drop(): void {
    this.gen++;
    this.busy = false;
    this.waiting = null;
  }

  private start(args: A) {
    this.busy = true;
    const gen = this.gen;
    let reply: Promise<R>;
    try {
      reply = this.run(args);
    } catch (e) {
      reply = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    reply.then(
      (r) => this.settle(gen, () => this.onReply(r, args)),
      (e: unknown) => this.settle(gen, () => this.onError(errorMessage(e), args)),
    );
  }

  private settle(gen: number, handle: () => void) {
    if (gen !== this.gen) return;
    this.busy = false;
    try {
      handle();
    } finally {
      const w = this.waiting;
      this.waiting = null;
      if (w) this.start(w.args);
    }
  }
}
