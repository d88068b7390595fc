import type { SiteContext } from '../../site-context.js';
import { stopMergeabilityChecks } from './mergeability.js';
import { pipelineMergesSettled } from './merge-when-pipeline-succeeds.js';
import { rebasesSettled } from './rebase.js';

/**
 * Waits for the merge request work a site runs in the background (mergeability checks, merges
 * after a pipeline, rebases), dropping the checks not started yet: a stopping site closes its
 * database and may have its data dir removed, which must not happen under a running git. The
 * checks dropped stay `unchecked` and the sweep at the next start queues them again.
 */
export async function settleMergeRequestWork(ctx: SiteContext): Promise<void> {
  // Merges and rebases queue checks when they finish: they go first.
  await Promise.all([pipelineMergesSettled(ctx), rebasesSettled(ctx)]);
  await stopMergeabilityChecks(ctx);
}
