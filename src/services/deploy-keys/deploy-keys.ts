import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteDeployKeyProject,
  deleteDeployKeyRow,
  deployKeyIdsOfProject,
  findDeployKey,
  findDeployKeyByFingerprint,
  findProjectDeployKey,
  findProjectDeployKeyByFingerprint,
  insertDeployKey,
  insertDeployKeyProject,
  isDeployKeyInUse,
  listDeployKeyRows,
  listProjectDeployKeyRows,
  updateDeployKeyProjectCanPush,
  updateDeployKeyTitle,
  type DeployKeyRow,
  type ProjectDeployKeyRow,
} from '../../db/tables/deploy-keys.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { invalid, notFound, type FieldErrors } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { canRetitleDeployKey, canUseDeployKey } from '../permissions.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import type { Actor } from '../users/authentication.js';
import { isFingerprintTaken, parseSshKey } from '../users/ssh-keys.js';

/** Every deploy key of the site (admins: GET /deploy_keys), optionally the public ones only. */
export function listDeployKeys(db: Db, publicOnly: boolean, page: Page): Paged<DeployKeyRow> {
  return listDeployKeyRows(db, publicOnly, page);
}

export function listProjectDeployKeys(db: Db, project: ProjectRow, page: Page): Paged<ProjectDeployKeyRow> {
  return listProjectDeployKeyRows(db, project.id, page);
}

/** The key as the project has it enabled, or 404 (GitLab's find_by! answers a bare `404 Not found`). */
export function getProjectDeployKey(db: Db, project: ProjectRow, keyId: number): ProjectDeployKeyRow {
  const row = findProjectDeployKey(db, project.id, keyId);
  if (!row) throw notFound();
  return row;
}

/**
 * Adds a deploy key to a project (GitLab's POST /projects/:id/deploy_keys): a key the project has
 * already is answered as it is; a key of the site the actor may use (canUseDeployKey) is enabled
 * with `can_push`; otherwise a new key is made. The key is parsed as SSH keys are, and its
 * fingerprint must be free among every key of the site, accounts' and deploy keys.
 */
export function addProjectDeployKey(
  db: Db,
  actor: Actor,
  project: ProjectRow,
  input: { title: string; key: string; canPush: boolean },
): ProjectDeployKeyRow {
  return inTransaction(db, () => {
    const parsed = parseSshKey(input.key);
    const errors: FieldErrors = {};
    if (!input.title.trim()) errors.title = ["can't be blank"];
    if (input.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
    if (!parsed) Object.assign(errors, { key: ['is invalid'], fingerprint: ['cannot be generated'] });
    if (!parsed || Object.keys(errors).length) throw invalid(errors);
    const enabled = findProjectDeployKeyByFingerprint(db, project.id, parsed.fingerprint);
    if (enabled) return enabled;
    const existing = findDeployKeyByFingerprint(db, parsed.fingerprint);
    if (existing && canUseDeployKey(db, actor, existing)) {
      insertDeployKeyProject(db, { deploy_key_id: existing.id, project_id: project.id, can_push: input.canPush ? 1 : 0, created_at: nowIso() });
      return findProjectDeployKey(db, project.id, existing.id)!;
    }
    if (existing || isFingerprintTaken(db, parsed.fingerprint)) throw invalid({ fingerprint: ['has already been taken'] });
    const id = insertDeployKey(db, {
      user_id: actor.user.id,
      title: input.title,
      key: parsed.text,
      fingerprint: parsed.fingerprint,
      fingerprint_md5: parsed.fingerprintMd5,
      public: 0,
      created_at: nowIso(),
    });
    insertDeployKeyProject(db, { deploy_key_id: id, project_id: project.id, can_push: input.canPush ? 1 : 0, created_at: nowIso() });
    return findProjectDeployKey(db, project.id, id)!;
  });
}

/**
 * Changes a project's deploy key: `can_push` for this project, and the key's title when the actor
 * may retitle it (canRetitleDeployKey; otherwise the title is left as it is, as GitLab does).
 */
export function updateProjectDeployKey(db: Db, actor: Actor, project: ProjectRow, keyId: number, input: { title?: string; canPush?: boolean }): ProjectDeployKeyRow {
  return inTransaction(db, () => {
    const row = getProjectDeployKey(db, project, keyId);
    if (input.title !== undefined && canRetitleDeployKey(actor, row)) {
      if (!input.title.trim()) throw invalid({ title: ["can't be blank"] });
      if (input.title.length > 255) throw invalid({ title: ['is too long (maximum is 255 characters)'] });
      updateDeployKeyTitle(db, keyId, input.title);
    }
    if (input.canPush !== undefined) updateDeployKeyProjectCanPush(db, project.id, keyId, input.canPush ? 1 : 0);
    return findProjectDeployKey(db, project.id, keyId)!;
  });
}

/** Enables a key the actor may use in the project (read-only until `can_push` is set); 404 `Deploy Key` otherwise. */
export function enableDeployKey(db: Db, actor: Actor, project: ProjectRow, keyId: number): DeployKeyRow {
  return inTransaction(db, () => {
    const key = findDeployKey(db, keyId);
    if (!key || !canUseDeployKey(db, actor, key)) throw notFound('Deploy Key');
    if (!findProjectDeployKey(db, project.id, keyId)) insertDeployKeyProject(db, { deploy_key_id: keyId, project_id: project.id, can_push: 0, created_at: nowIso() });
    return key;
  });
}

/** Removes the key from the project; a key no other project uses goes too, unless it is public (GitLab's orphan rule). */
export function removeProjectDeployKey(db: Db, project: ProjectRow, keyId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const row = findProjectDeployKey(db, project.id, keyId);
    if (!row) throw notFound('Deploy Key');
    // Neither the key nor its link records a change after it is made: the link's creation is compared.
    assertUnmodifiedSince(unmodifiedSince, row.created_at);
    unlinkDeployKey(db, project.id, row);
  });
}

/** Every key of a project being deleted, by the same orphan rule; call it inside the deletion's transaction. */
export function removeDeployKeysOfProject(db: Db, projectId: number): void {
  for (const keyId of deployKeyIdsOfProject(db, projectId)) unlinkDeployKey(db, projectId, findDeployKey(db, keyId)!);
}

function unlinkDeployKey(db: Db, projectId: number, key: DeployKeyRow): void {
  deleteDeployKeyProject(db, projectId, key.id);
  if (key.public === 0 && !isDeployKeyInUse(db, key.id)) deleteDeployKeyRow(db, key.id);
}
