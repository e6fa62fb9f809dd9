import type { Db } from '@policyhub/db';
import type { ObjectStore, PolicySetSource, WorkspaceDirectory } from '../domain/ports.js';

/** What the use cases work with: the service's database and the ports to other services. */
export interface WorkflowContext {
  db: Db;
  workspaces: WorkspaceDirectory;
  policySets: PolicySetSource;
  objects: ObjectStore;
  /** Called after a transaction queued object deletions, so the sweeper runs soon. */
  onObjectsOrphaned?: () => void;
}
