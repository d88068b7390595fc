import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface UploadRow {
  id: number;
  project_id: number;
  secret: string;
  filename: string;
  size: number;
  sha256: string;
  mimetype: string;
  uploaded_by_id: number | null;
  created_at: string;
}

export function insertUpload(db: Db, upload: Omit<UploadRow, 'id'>): UploadRow {
  const result = prepare(
    db,
    `INSERT INTO uploads (project_id, secret, filename, size, sha256, mimetype, uploaded_by_id, created_at)
     VALUES (@project_id, @secret, @filename, @size, @sha256, @mimetype, @uploaded_by_id, @created_at)`,
  ).run(upload);
  return { id: Number(result.lastInsertRowid), ...upload };
}

export function findUploadById(db: Db, id: number): UploadRow | undefined {
  return prepare(db, 'SELECT * FROM uploads WHERE id = ?').get(id) as UploadRow | undefined;
}

/** The upload a download URL names: exact secret and filename within the project. */
export function findUpload(db: Db, projectId: number, secret: string, filename: string): UploadRow | undefined {
  return prepare(db, 'SELECT * FROM uploads WHERE project_id = ? AND secret = ? AND filename = ?').get(projectId, secret, filename) as UploadRow | undefined;
}
