import { findNamespaceById } from '../../db/tables/namespaces.js';
import type { AppError } from '../../errors.js';
import { findEditableIssue, findReadableIssue } from '../../services/issuables/issues.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { pathId, valueGuard } from '../middleware/value-guards.js';
import type { Guard } from '../routes.js';

/** The `:issue_iid` of a route (400 `issue_iid is invalid`), read before the project is found, as Grape does. */
export const issueIid = pathId('issue_iid');

/** The issue the caller may read (404 `Not found` otherwise, a hidden confidential issue included); list it after loadProject. */
export const readableIssue = valueGuard('readableIssue', (ctx, req) => findReadableIssue(ctx.db, req.actor, projectOf(req), issueIid.of(req)));

/** The same, for the routes whose 404 names the issue (`404 Issue Not Found`: delete and move). */
export const namedIssue = valueGuard('namedIssue', (ctx, req) => findReadableIssue(ctx.db, req.actor, projectOf(req), issueIid.of(req), 'Issue'));

/** The issue the caller may edit: readable (404), then the author, an assignee or admin_issue (403). */
export const editableIssue = valueGuard('editableIssue', (ctx, req) => findEditableIssue(ctx.db, requireActor(req), projectOf(req), issueIid.of(req)));

/** The project's group, for rules asked of it (promotions): `missing()` is thrown when the project lives in a user's namespace. */
export function projectGroup(missing: () => AppError): Guard {
  return {
    name: 'projectGroup',
    check: (ctx, req) => {
      const namespace = findNamespaceById(ctx.db, projectOf(req).namespace_id);
      if (!namespace || namespace.kind !== 'group') throw missing();
      req.group ??= namespace;
    },
  };
}
