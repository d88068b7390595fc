import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBareRepository, createWikiRepository } from '../../src/git/repositories.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { repositoryPath } from '../../src/storage/layout.js';

describe('creating an empty repository', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-init-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  const head = (repository: string) => readFile(path.join(repository, 'HEAD'), 'utf8');
  /** Whatever is left beside the repository: no staging directory may stay. */
  const siblings = async (repository: string) => readdir(path.dirname(repository));

  it('replaces a directory without HEAD, as a site killed mid-init left it', async () => {
    const target = repositoryPath(dataDir, 10);
    await mkdir(path.join(target, 'objects'), { recursive: true });
    await writeFile(path.join(target, 'config'), '[core]\n');
    await createBareRepository(dataDir, 10, 'main');
    expect(await head(target)).toBe('ref: refs/heads/main\n');
    expect(await refsChecksum(target)).toMatch(/^[0-9a-f]{64}$/);
    expect(await siblings(target)).toEqual([path.basename(target)]);
  });

  it('is whole or absent: a creation that fails half-way leaves nothing at the final path', async () => {
    const target = repositoryPath(dataDir, 11);
    // git init succeeds, pointing HEAD at a name git refuses fails: the step after it.
    await expect(createBareRepository(dataDir, 11, 'bad..name')).rejects.toThrow();
    expect(await readdir(path.dirname(target)).catch(() => [])).toEqual([]);
  });

  it('leaves an existing repository as it is, also when calls race', async () => {
    const [wiki] = await Promise.all([createWikiRepository(dataDir, 3), createWikiRepository(dataDir, 3), createWikiRepository(dataDir, 3)]);
    expect(await head(wiki)).toBe('ref: refs/heads/master\n');
    await writeFile(path.join(wiki, 'description'), 'kept');
    await createWikiRepository(dataDir, 3);
    expect(await readFile(path.join(wiki, 'description'), 'utf8')).toBe('kept');
    expect(await siblings(wiki)).toEqual([path.basename(wiki)]);
  });
});
