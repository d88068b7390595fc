import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface UserAgentDetailRow {
  id: number;
  subject_type: 'Issue' | 'Snippet';
  subject_id: number;
  user_agent: string;
  ip_address: string;
  submitted: number;
  created_at: string;
}

export function findUserAgentDetail(db: Db, type: UserAgentDetailRow['subject_type'], subjectId: number): UserAgentDetailRow | undefined {
  return prepare(db, 'SELECT * FROM user_agent_details WHERE subject_type = ? AND subject_id = ?').get(type, subjectId) as UserAgentDetailRow | undefined;
}

export function insertUserAgentDetail(db: Db, type: UserAgentDetailRow['subject_type'], subjectId: number, userAgent: string, ipAddress: string, now: string): void {
  prepare(db, 'INSERT INTO user_agent_details (subject_type, subject_id, user_agent, ip_address, created_at) VALUES (?, ?, ?, ?, ?)').run(
    type,
    subjectId,
    userAgent,
    ipAddress,
    now,
  );
}

export function deleteUserAgentDetailsOf(db: Db, type: UserAgentDetailRow['subject_type'], subjectIds: readonly number[]): void {
  prepare(db, 'DELETE FROM user_agent_details WHERE subject_type = ? AND subject_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(subjectIds));
}
