export {
  bundledPostgres,
  canEnter,
  canRun,
  type InstallationOptions,
  type PostgresInstallation,
  postgresInstallation,
  ROOT_STATE_DIR,
  type ServerUser,
  serverUser,
} from './installation.js';
export { type ClusterOptions, freeLoopbackPort, PostgresCluster, postmasterPid } from './cluster.js';
export { type ClusterPlacement, clusterPlacement } from './placement.js';
