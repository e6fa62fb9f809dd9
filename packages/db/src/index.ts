export {
  Db,
  type Queryable,
  type QueryOptions,
  type DbOptions,
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
