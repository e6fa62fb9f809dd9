/**
 * `npm run openapi`: writes docs/api/openapi.json from the gateway's route schemas (ADR 0029).
 * The gateway's tests fail while the committed file differs from what this writes.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateOpenApiDocument } from '../src/openapi-document.js';
import { OPENAPI_FILE } from '../src/plugins/openapi.js';

const target = fileURLToPath(new URL(`../../../${OPENAPI_FILE}`, import.meta.url));
await writeFile(target, await generateOpenApiDocument());
console.log(`wrote ${OPENAPI_FILE}`);
