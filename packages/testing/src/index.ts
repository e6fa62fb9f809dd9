export { createTestDatabase, testServerUrl, type TestDatabase } from './database.js';
export { freePort } from './ports.js';
export { waitFor } from './wait.js';
