import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type TodoTargetType = 'Issue' | 'MergeRequest' | 'Epic' | 'Commit';

/** Deletes the todos about these targets (todos do not cascade from their polymorphic target). */
export function deleteTodosOfTargets(db: Db, type: TodoTargetType, targetIds: readonly number[]): void {
  prepare(db, 'DELETE FROM todos WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(targetIds));
}
