/**
 * One timer that fires `wake` when the earliest due time it was given comes: a queue arms it with
 * its next retry after each pump; a later time than the one armed changes nothing. A time that is
 * already past (the clock moved on since the queue's query) fires at once, so no item is stranded
 * until the next enqueue. The timer never keeps the process alive.
 */
export class DueWake {
  private timer: NodeJS.Timeout | null = null;
  private at = Infinity;

  constructor(private readonly wake: () => void) {}

  arm(dueAt: number | null): void {
    if (dueAt === null || dueAt >= this.at) return;
    this.clear();
    this.at = dueAt;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.at = Infinity;
      this.wake();
    }, Math.max(0, dueAt - Date.now()));
    this.timer.unref();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.at = Infinity;
  }
}
