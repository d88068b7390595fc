import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

export interface Job {
  readonly name: string;
  /** A node-cron expression; six fields when it runs more often than once a minute. */
  readonly expression: string;
  readonly run: () => void | Promise<void>;
}

/** Every schedule of a site goes through here: a run never overlaps itself and a failure is logged with the job's name. */
export function startJobs(jobs: readonly Job[], log: Logger): () => Promise<void> {
  const tasks: ScheduledTask[] = jobs.map((job) =>
    cron.schedule(
      job.expression,
      async () => {
        try {
          await job.run();
        } catch (error) {
          log.error({ err: error, job: job.name }, 'scheduled job failed');
        }
      },
      { name: job.name, noOverlap: true },
    ),
  );
  return async () => {
    for (const task of tasks) await task.destroy();
  };
}

/** A six-field expression that fires every `seconds` seconds (1-59). */
export const everySeconds = (seconds: number): string => `*/${seconds} * * * * *`;
