import { BLOB_KINDS, blobKindOf, type BlobExpectation, type BlobKind, type BlobStore, type OpenedBlob } from './blob-store.js';
import { LocalBlobStore } from './local-store.js';
import type { ObjectStoreConfig, StoreHealth } from './object-store.js';

/** One kind's stores: where it is written, and (for an object-stored kind) the local disk, read while a migration moves blobs. */
export interface KindStores {
  readonly kind: BlobKind;
  readonly store: BlobStore;
  /** Where blobs not (or not yet) in `store` are looked for: the other place of a migration. */
  readonly other: BlobStore;
  /** Downloads go through the site; false sends clients to a presigned URL of the store. */
  readonly proxyDownload: boolean;
  readonly presignSeconds: number;
}

/**
 * Every blob kind's store on this site. The local disk is the default and needs no setting; a kind
 * with an object store is written there and read from there first, then from the disk, so a site
 * serves every blob while `geoforge storage migrate` moves them in either direction.
 */
export class BlobStores {
  private readonly kinds: Readonly<Record<BlobKind, KindStores>>;

  /** `objectStores`: the kinds kept in a store, each with its store built (see open()); the others stay on the disk. */
  constructor(dataDir: string, objectStores: Readonly<Partial<Record<BlobKind, { store: BlobStore; config: ObjectStoreConfig }>>> = {}) {
    const local = new LocalBlobStore(dataDir);
    const entries = BLOB_KINDS.map((kind): [BlobKind, KindStores] => {
      const stored = objectStores[kind];
      if (!stored) return [kind, { kind, store: local, other: local, proxyDownload: true, presignSeconds: 0 }];
      return [kind, { kind, store: stored.store, other: local, proxyDownload: stored.config.proxyDownload, presignSeconds: stored.config.presignSeconds }];
    });
    this.kinds = Object.freeze(Object.fromEntries(entries) as Record<BlobKind, KindStores>);
  }

  /**
   * The stores a configuration names. The S3 client is loaded only when some kind has a store:
   * about 0.5 s and 20 MiB that a site on its local disk never pays.
   */
  static async open(dataDir: string, configs: Readonly<Partial<Record<BlobKind, ObjectStoreConfig>>>, health: StoreHealth): Promise<BlobStores> {
    const kinds = BLOB_KINDS.filter((kind) => configs[kind]);
    if (kinds.length === 0) return new BlobStores(dataDir);
    const { S3BlobStore } = await import('./object-store.js');
    return new BlobStores(dataDir, Object.fromEntries(kinds.map((kind) => [kind, { store: new S3BlobStore(kind, configs[kind]!, health), config: configs[kind]! }])));
  }

  of(kind: BlobKind): KindStores {
    return this.kinds[kind];
  }

  /** The stores of the kind a key belongs to; a key outside the blob kinds is a programming error. */
  forKey(key: string): KindStores {
    const kind = blobKindOf(key);
    if (kind === null) throw new Error(`${key} is not a blob key`);
    return this.kinds[kind];
  }

  /** The kinds kept in an object store. */
  objectKinds(): BlobKind[] {
    return BLOB_KINDS.filter((kind) => this.kinds[kind].store.location === 'object');
  }

  put(key: string, source: string | AsyncIterable<Buffer> | Iterable<Buffer>, expected?: BlobExpectation): Promise<{ sha256: string; size: number }> {
    return this.forKey(key).store.put(key, source, expected);
  }

  /** The store that holds the blob now (its own first, then the other place); null when neither does. */
  async locate(key: string): Promise<{ store: BlobStore; size: number } | null> {
    const { store, other } = this.forKey(key);
    const here = await store.head(key);
    if (here) return { store, size: here.size };
    if (other === store) return null;
    const there = await other.head(key);
    return there ? { store: other, size: there.size } : null;
  }

  async open(key: string): Promise<OpenedBlob | null> {
    const { store, other } = this.forKey(key);
    return (await store.open(key)) ?? (other === store ? null : await other.open(key));
  }

  async head(key: string): Promise<{ size: number } | null> {
    return (await this.locate(key)) ?? null;
  }

  async digest(key: string): Promise<{ sha256: string; size: number } | null> {
    const found = await this.locate(key);
    return found ? found.store.digest(key) : null;
  }

  /** A presigned URL when the kind sends clients to its store and the blob is there; null to serve it through the site. */
  async presignedGet(key: string, filename?: string): Promise<string | null> {
    const { store, proxyDownload, presignSeconds } = this.forKey(key);
    if (proxyDownload || store.location !== 'object' || !(await store.head(key))) return null;
    return store.presignedGet(key, presignSeconds, filename);
  }

  async remove(key: string): Promise<void> {
    const { store, other } = this.forKey(key);
    await store.remove(key);
    if (other !== store) await other.remove(key);
  }

  async removeFolder(prefix: string): Promise<void> {
    const { store, other } = this.forKey(prefix);
    await store.removeFolder(prefix);
    if (other !== store) await other.removeFolder(prefix);
  }

  async folderSize(prefix: string): Promise<number> {
    const { store, other } = this.forKey(prefix);
    return (await store.folderSize(prefix)) + (other === store ? 0 : await other.folderSize(prefix));
  }

  /** Every object store answers and has its bucket (boot); throws the first failure. */
  async check(): Promise<void> {
    for (const kind of this.objectKinds()) await this.kinds[kind].store.check();
  }

  close(): void {
    for (const kind of this.objectKinds()) this.kinds[kind].store.close();
  }
}
