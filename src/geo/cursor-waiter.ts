/** Lets requests on a secondary wait until the cursor reaches an event id (read-your-writes). */
export class CursorWaiter {
  private readonly waiters = new Set<{ eventId: number; done: (reached: boolean) => void }>();
  /** Closed (replication stopped: a promotion, a shutdown): nothing waits for a cursor that no longer moves. */
  private closed = false;

  constructor(private readonly cursor: () => number) {}

  /** True once the cursor is at or past `eventId`; false when `timeoutMs` ran out first. */
  waitFor(eventId: number, timeoutMs: number): Promise<boolean> {
    if (this.cursor() >= eventId) return Promise.resolve(true);
    if (timeoutMs <= 0 || this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        eventId,
        done: (reached: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.done(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Called after each applied batch. */
  applied(cursor: number): void {
    for (const waiter of [...this.waiters]) if (cursor >= waiter.eventId) waiter.done(true);
  }

  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.done(false);
  }
}
