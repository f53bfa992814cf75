/**
 * At most `concurrency` tasks run at once and at most `maxWaiting` wait for a
 * turn, first come first served; a task beyond that is refused at once. For
 * work that is expensive on purpose (password hashing): under a flood, an
 * unbounded queue would make every caller wait past its deadline while the
 * service still does all the work nobody waits for any more. Refusing early,
 * with a retry hint, keeps the wait of those admitted short.
 */
export class BoundedConcurrency {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(task: () => Promise<T>, refusal: () => Error): Promise<T> {
    if (this.running < this.concurrency) {
      this.running++;
    } else {
      if (this.waiting.length >= this.maxWaiting) throw refusal();
      // The finishing task hands its slot over directly, so `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
