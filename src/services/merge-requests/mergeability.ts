import { prepare, inTransaction } from '../../db/connection.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow, type MergeStatus } from '../../db/tables/merge-requests.js';
import { projectFullPaths, usersByIds } from '../../db/tables/project-relations.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { buildMerge, setRef } from '../../git/merges.js';
import type { SiteContext } from '../../site-context.js';
import { currentMergeHeads, mergeRequestMergeRef } from './merge-heads.js';

/**
 * merge_status without writes on reads (issue 15, Design): the primary computes mergeability in
 * the background when a merge request is created and whenever its source or target branch moves,
 * and stores it with the heads it was computed on; a GET only reads the stored value, so a
 * secondary serves it from its own copy. A clean merge also refreshes
 * refs/merge-requests/<iid>/merge with the merge result (GitLab's merge ref).
 */

/** One site's queue: ids waiting, and whether a worker drains it. Two sites in one process keep two queues. */
interface CheckQueue {
  readonly waiting: Set<number>;
  running: Promise<void> | null;
}
const queues = new WeakMap<SiteContext, CheckQueue>();

/**
 * Queues mergeability checks (a no-op on a secondary, whose rows are copies). An id already waiting
 * is checked once; an id checked right now is checked again afterwards, so a branch that moved
 * during a check always ends with a check of its newest heads.
 */
export function scheduleMergeabilityChecks(ctx: SiteContext, mergeRequestIds: readonly number[]): void {
  if (ctx.config.role !== 'primary' || mergeRequestIds.length === 0) return;
  // A request worker runs no check: the background worker does (server.ts hands the ids to it).
  if (!ctx.runsBackground) return ctx.bus.toBackground({ kind: 'mergeability-check', ids: [...mergeRequestIds] });
  let queue = queues.get(ctx);
  if (!queue) {
    queue = { waiting: new Set(), running: null };
    queues.set(ctx, queue);
  }
  for (const id of mergeRequestIds) queue.waiting.add(id);
  if (!queue.running) queue.running = drain(ctx, queue);
}

async function drain(ctx: SiteContext, queue: CheckQueue): Promise<void> {
  // Let the caller's request finish first: the check is background work.
  await new Promise((resolve) => setImmediate(resolve));
  while (queue.waiting.size > 0 && ctx.db.open) {
    const [id] = queue.waiting;
    queue.waiting.delete(id!);
    try {
      await checkMergeability(ctx, id!);
    } catch (error) {
      // Left unchecked: the sweep (scheduleUncheckedMergeRequests) tries it again.
      if (ctx.db.open) ctx.log.error({ err: error, merge_request_id: id }, 'mergeability check failed');
    }
  }
  queue.running = null;
}

/** Resolves once the site's queue is empty (tests and the benchmark wait on it). */
export async function mergeabilityChecksSettled(ctx: SiteContext): Promise<void> {
  for (let queue = queues.get(ctx); queue?.running; queue = queues.get(ctx)) await queue.running;
}

/** Drops the checks not started yet and waits for the one running (a stopping site). */
export async function stopMergeabilityChecks(ctx: SiteContext): Promise<void> {
  queues.get(ctx)?.waiting.clear();
  await mergeabilityChecksSettled(ctx);
}

/** The sweep: queues the open merge requests still `unchecked` (after a restart, or a failed check); index merge_requests_unchecked. */
export function scheduleUncheckedMergeRequests(ctx: SiteContext, limit = 500): void {
  const ids = prepare(ctx.db, "SELECT id FROM merge_requests WHERE state = 'opened' AND merge_status = 'unchecked' ORDER BY id LIMIT ?")
    .pluck()
    .all(limit) as number[];
  scheduleMergeabilityChecks(ctx, ids);
}

/**
 * GitLab's default merge commit message (MergeRequest#merge_commit_message): the branches, the
 * title, the issues it closes, and the full reference of the merge request.
 */
export function defaultMergeCommitMessage(ctx: SiteContext, mergeRequest: MergeRequestRow, closesIssues: readonly string[] = []): string {
  const fullPath = projectFullPaths(ctx.db, [mergeRequest.target_project_id]).get(mergeRequest.target_project_id) ?? '';
  const parts = [`Merge branch '${mergeRequest.source_branch}' into '${mergeRequest.target_branch}'`, mergeRequest.title];
  if (closesIssues.length) parts.push(`Closes ${toSentence(closesIssues)}`);
  parts.push(`See merge request ${fullPath}!${mergeRequest.iid}`);
  return parts.join('\n\n');
}

/** Rails' Array#to_sentence: `a`, `a and b`, `a, b, and c`. */
function toSentence(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

/**
 * Computes one merge request's mergeability against the current heads and stores it: `cannot_be_merged`
 * when a branch is gone, the histories are unrelated or the merge conflicts, `can_be_merged`
 * otherwise, with refs/merge-requests/<iid>/merge moved to the merge result. A merge request no
 * longer open is left alone. Resolves to the status stored (null when nothing was checked).
 */
async function checkMergeability(ctx: SiteContext, mergeRequestId: number): Promise<MergeStatus | null> {
  const mergeRequest = findMergeRequestById(ctx.db, mergeRequestId);
  if (!mergeRequest || mergeRequest.state !== 'opened') return null;
  const heads = await currentMergeHeads(ctx, mergeRequest);
  let status: MergeStatus = 'cannot_be_merged';
  let mergeRef: string | null = null;
  if (heads.source && heads.target) {
    const author = usersByIds(ctx.db, [mergeRequest.author_id]).get(mergeRequest.author_id);
    const identity = { name: author?.name ?? 'Ghost User', email: author?.email ?? 'ghost@localhost' };
    const built = await buildMerge(heads.repository, heads.target, heads.source, {
      squash: false,
      message: defaultMergeCommitMessage(ctx, mergeRequest),
      author: identity,
      committer: identity,
    });
    if (built.ok) {
      status = 'can_be_merged';
      mergeRef = built.sha;
      await setRef(heads.repository, mergeRequestMergeRef(mergeRequest), built.sha, `geoforge: merge ref of !${mergeRequest.iid}`);
    }
  }
  const stored = inTransaction(ctx.db, () => {
    const current = findMergeRequestById(ctx.db, mergeRequestId);
    if (!current || current.state !== 'opened') return false;
    updateMergeRequestRow(ctx.db, mergeRequestId, {
      merge_status: status,
      merge_status_source_sha: heads.source,
      merge_status_target_sha: heads.target,
      ...(mergeRef ? { merge_ref_sha: mergeRef } : {}),
    });
    return true;
  });
  // The merge ref is a ref like any other: secondaries fetch it.
  if (mergeRef) await recordRepositoryChange(ctx.db, ctx.config.dataDir, mergeRequest.target_project_id, 'repository', 'updated');
  return stored ? status : null;
}
