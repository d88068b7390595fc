import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** The keys an admin set through the API, as a JSON object; null while nothing was set. */
export function selectStoredSettings(db: Db): Record<string, unknown> | null {
  const text = prepare(db, 'SELECT settings FROM application_settings WHERE id = 1').pluck().get() as string | undefined;
  return text === undefined ? null : (JSON.parse(text) as Record<string, unknown>);
}

export function upsertStoredSettings(db: Db, settings: Record<string, unknown>, now: string): void {
  prepare(
    db,
    `INSERT INTO application_settings (id, settings, updated_at) VALUES (1, @settings, @now)
     ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
  ).run({ settings: JSON.stringify(settings), now });
}
