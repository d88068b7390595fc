import type { Scenario } from '../lib/scenario.js';
import { backgroundIsolation } from './background-isolation.js';
import { autoFailover } from './auto-failover.js';
import { failover } from './failover.js';
import { geoBlobSync } from './geo-blob-sync.js';
import { geoInitialSync } from './geo-initial-sync.js';
import { gitClone } from './git-clone.js';
import { gptMix } from './gpt-mix.js';
import { issuesList } from './issues-list.js';
import { issuesWrite } from './issues-write.js';
import { lfsObjectStore } from './lfs-object-store.js';
import { lfsTransfer } from './lfs-transfer.js';
import { listsDeepPage } from './lists-deep-page.js';
import { mrList } from './mr-list.js';
import { mrMerge } from './mr-merge.js';
import { replicationCatchup } from './replication-catchup.js';
import { replicationLag } from './replication-lag.js';
import { search } from './search.js';
import { usersRead } from './users-read.js';

/** Every scenario, in the order `npm run bench` runs them. */
export const scenarios: readonly Scenario[] = [
  usersRead, listsDeepPage, issuesList, issuesWrite, mrList, mrMerge, replicationCatchup, replicationLag, gitClone, lfsTransfer, lfsObjectStore, geoInitialSync, geoBlobSync, failover, autoFailover, gptMix, search, backgroundIsolation,
];
