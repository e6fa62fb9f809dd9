export { Db, type Queryable, type DbOptions } from './db.js';
export { runMigrations, type Migration, readMigrationsDir } from './migrate.js';
export { isUniqueViolation, isConnectionError } from './pg-errors.js';
export { pageWindow, pageInfo } from './pagination.js';
