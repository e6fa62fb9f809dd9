export {
  Db,
  type Queryable,
  type QueryOptions,
  type DbOptions,
  DEFAULT_DATABASE_TIMEOUTS,
  parseTextArray,
  timestamptzToIso,
} from './db.js';
export {
  EditedMigrationError,
  type Migration,
  migrationChecksum,
  readMigrationsDir,
  runMigrations,
} from './migrate.js';
export { isUniqueViolation, isConnectionError } from './pg-errors.js';
export { pageWindow, pageInfo } from './pagination.js';
export {
  MAX_DETAILS_BYTES,
  MAX_DETAILS_DEPTH,
  MAX_REPORT_BYTES,
  storableText,
  unstorableJson,
  unstorableText,
} from './storable.js';
