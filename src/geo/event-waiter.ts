/**
 * Wakes long-poll requests when the log grows. Writes served by this process call written(), which
 * tells the site's other workers too (`tell`, over the site bus), whose long polls wake by notify();
 * a short poll covers writers outside the site (the CLI) while anyone is waiting.
 */
export class EventWaiter {
  private readonly waiters = new Set<{ afterId: number; wake: () => void }>();
  private timer: NodeJS.Timeout | null = null;
  /** Closed (the role stops, the site drains): long polls answer at once. */
  private closed = false;

  constructor(
    private readonly lastEventId: () => number,
    private readonly tell: () => void = () => undefined,
    private readonly pollMs = 20,
  ) {}

  /** A write of this process finished: wake the long polls here and in the other workers. */
  written(): void {
    this.notify();
    this.tell();
  }

  /** Resolves when an event after `afterId` exists, or after `timeoutMs`. */
  wait(afterId: number, timeoutMs: number): Promise<void> {
    if (this.closed || this.lastEventId() > afterId || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        afterId,
        wake: () => {
          clearTimeout(timeout);
          this.waiters.delete(waiter);
          if (!this.waiters.size) this.stopPolling();
          resolve();
        },
      };
      const timeout = setTimeout(waiter.wake, timeoutMs);
      this.waiters.add(waiter);
      this.timer ??= setInterval(() => this.notify(), this.pollMs);
    });
  }

  notify(): void {
    if (!this.waiters.size) return;
    const last = this.lastEventId();
    for (const waiter of [...this.waiters]) if (last > waiter.afterId) waiter.wake();
  }

  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.wake();
    this.stopPolling();
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
