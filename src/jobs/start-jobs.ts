import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

export interface Job {
  readonly name: string;
  /** A node-cron expression; six fields when it runs more often than once a minute. */
  readonly expression: string;
  /** Runs once at start as well, not only when the expression first fires. */
  readonly atStart: boolean;
  readonly run: () => void | Promise<void>;
}

/**
 * Every schedule of a site goes through here: a run never overlaps itself and a failure is logged
 * with the job's name. The returned stop ends the schedules and waits for the runs made at start.
 */
export function startJobs(jobs: readonly Job[], log: Logger): () => Promise<void> {
  const guarded = (job: Job) => async () => {
    try {
      await job.run();
    } catch (error) {
      log.error({ err: error, job: job.name }, 'scheduled job failed');
    }
  };
  const tasks: ScheduledTask[] = jobs.map((job) => cron.schedule(job.expression, guarded(job), { name: job.name, noOverlap: true }));
  const atStart = Promise.all(jobs.filter((job) => job.atStart).map((job) => guarded(job)()));
  return async () => {
    for (const task of tasks) await task.destroy();
    await atStart;
  };
}
