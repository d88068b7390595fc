import { findEditableMergeRequest, findReadableMergeRequest } from '../../services/merge-requests/merge-requests.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { valueGuard } from '../middleware/value-guards.js';
import { mergeRequestIid } from './params.js';

/** The merge request the caller may read (404 `Not found` otherwise); list it after loadProject. */
export const readableMergeRequest = valueGuard('readableMergeRequest', (ctx, req) => findReadableMergeRequest(ctx.db, req.actor, projectOf(req), mergeRequestIid.of(req)));

/** The same, for routes whose 404 names the merge request (`404 Merge Request Not Found`: todo, delete). */
export const namedMergeRequest = valueGuard('namedMergeRequest', (ctx, req) => findReadableMergeRequest(ctx.db, req.actor, projectOf(req), mergeRequestIid.of(req), 'Merge Request'));

/** The merge request the caller may edit: readable (404), then a developer, its author or its assignee (403). */
export const editableMergeRequest = valueGuard('editableMergeRequest', (ctx, req) => findEditableMergeRequest(ctx.db, requireActor(req), projectOf(req), mergeRequestIid.of(req)));
