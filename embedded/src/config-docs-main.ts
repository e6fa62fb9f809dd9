// `npm run docs:config`: writes docs/configuration.md from the typed configuration shapes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configurationDoc } from './config-docs.js';

const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
writeFileSync(target, configurationDoc());
console.log(`wrote ${target}`);
