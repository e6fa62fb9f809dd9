export { createTestDatabase, testServerUrl, type TestDatabase } from './database.js';
export { freePort } from './ports.js';
export { startMockKafka, type MockKafka } from './kafka-mock.js';
export { waitFor } from './wait.js';
export { testAuth, testSigningKeys, testWorkerTokens } from './internal-auth.js';
export {
  END_OF_ARCHIVE,
  padded,
  paxRecords,
  type RawHeader,
  rawFile,
  rawGnuLong,
  rawHeader,
  rawPax,
  rawTar,
} from './raw-tar.js';
