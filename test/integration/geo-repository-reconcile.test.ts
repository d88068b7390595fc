import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlobEvent } from '../../src/geo/blobs.js';
import { reconcileRepositoryStates } from '../../src/geo/fill-repository-states.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { createProject } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issue 20, item 4 (found by the crash soak): a primary killed after a push moved refs but before
 * the change was recorded left repository_states and the event log describing the old refs, so
 * secondaries stayed "synced" to them (or failed checksum_mismatch forever). At start the primary
 * now reconciles every recorded checksum with the disk.
 */
describe('reconciling recorded repository states with the disk after a crash', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.stop();
  });

  const lastEventId = () => site.site.db.prepare('SELECT coalesce(max(id), 0) FROM geo_event_log').pluck().get() as number;
  const recorded = (projectId: number) => site.site.db.prepare('SELECT repository_checksum FROM repository_states WHERE project_id = ?').pluck().get(projectId) as string | null;

  it('records a change a crash left unrecorded, once, and nothing when the disk matches', async () => {
    const project = await createProject(site, { initialize_with_readme: true });
    const repository = repositoryPath(site.dataDir, project.id);
    expect(recorded(project.id)).toBe(await refsChecksum(repository));

    // What a push does on disk, without the recording that follows it (the process died in between).
    await runGit(['--git-dir', repository, 'update-ref', 'refs/heads/unrecorded', 'HEAD']);
    const before = lastEventId();
    const onDisk = await refsChecksum(repository);
    expect(recorded(project.id)).not.toBe(onDisk);

    await reconcileRepositoryStates(site.site.db, site.dataDir, { pageSize: 1 });
    expect(recorded(project.id)).toBe(onDisk);
    const events = (site.site.db.prepare("SELECT payload FROM geo_event_log WHERE kind = 'blob' AND id > ? ORDER BY id").pluck().all(before) as string[]).map((payload) =>
      parseBlobEvent(JSON.parse(payload)),
    );
    expect(events).toEqual([expect.objectContaining({ type: 'repository', action: 'updated', id: project.id, checksum: onDisk })]);

    const after = lastEventId();
    expect(await reconcileRepositoryStates(site.site.db, site.dataDir)).toBe(0);
    expect(lastEventId()).toBe(after);
  });
});
