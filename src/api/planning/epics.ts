import { epicNoteable } from '../../services/issuables/noteables.js';
import { noteableRoutes } from '../issuables/note-routes.js';
import { groupOf, loadGroup, requireAbility, signedIn } from '../middleware/guards.js';
import { valueGuard } from '../middleware/value-guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addEpic, addEpicIssue, editEpic, listEpicIssuesOf, listGroupEpics, moveEpicIssueOf, removeEpic, removeEpicIssueOf, showEpic } from './epics-handlers.js';
import { epicCreateParams, epicIid, epicIssueId, epicIssueMoveParams, epicListParams, epicsAvailable, epicUpdateParams, issueId, namedEpic } from './epics-params.js';

/**
 * Epics and epic issues (SPEC "Epics and epic issues", GITLAB-NOTES 2.5-2.6), on both path forms
 * (decision 4): the edition (403), signed in (401), parameters (400), a visible group (404), the
 * ability (403), then the epic (404).
 */
/** The epic a path names, as a noteable: its notes, discussions and award emoji use the tracker's routes and services. */
const epicAsNoteable = valueGuard('epicNoteable', (_ctx, req) => epicNoteable(groupOf(req), namedEpic.of(req)));

function epicRoutesAt(base: string): Route[] {
  const group = (ability: 'read_epic' | 'admin_epic' | 'destroy_epic') => [loadGroup(), requireAbility(ability)];
  const epic = `${base}/:epic_iid`;
  return [
    { method: 'get', path: base, guards: [epicsAvailable, signedIn, epicListParams, ...group('read_epic')], handler: listGroupEpics },
    { method: 'post', path: base, guards: [epicsAvailable, signedIn, epicCreateParams, ...group('admin_epic')], handler: addEpic },
    { method: 'get', path: epic, guards: [epicsAvailable, signedIn, epicIid, ...group('read_epic'), namedEpic], handler: showEpic },
    { method: 'put', path: epic, guards: [epicsAvailable, signedIn, epicIid, epicUpdateParams, ...group('admin_epic'), namedEpic], handler: editEpic },
    { method: 'delete', path: epic, guards: [epicsAvailable, signedIn, epicIid, ...group('destroy_epic'), namedEpic], handler: removeEpic },

    { method: 'get', path: `${epic}/issues`, guards: [epicsAvailable, signedIn, epicIid, paged, ...group('read_epic'), namedEpic], handler: listEpicIssuesOf },
    { method: 'post', path: `${epic}/issues/:issue_id`, guards: [epicsAvailable, signedIn, epicIid, issueId, ...group('admin_epic'), namedEpic], handler: addEpicIssue },
    {
      method: 'put',
      path: `${epic}/issues/:epic_issue_id`,
      guards: [epicsAvailable, signedIn, epicIid, epicIssueId, epicIssueMoveParams, ...group('admin_epic'), namedEpic],
      handler: moveEpicIssueOf,
    },
    { method: 'delete', path: `${epic}/issues/:epic_issue_id`, guards: [epicsAvailable, signedIn, epicIid, epicIssueId, ...group('admin_epic'), namedEpic], handler: removeEpicIssueOf },

    ...noteableRoutes({
      base: epic,
      gate: [epicsAvailable],
      load: [epicIid, ...group('read_epic'), namedEpic, epicAsNoteable],
      noteable: epicAsNoteable,
      resourceEvents: false,
    }),
  ];
}

export const epicsRoutes: readonly Route[] = [...epicRoutesAt('/groups/:id/-/epics'), ...epicRoutesAt('/groups/:id/epics')];
