#!/usr/bin/env node
import { main } from '../src/main.mjs';

// SIGINT (Ctrl-C, a CI job canceled) and SIGTERM end the wait: the check discards its run first.
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => interrupted.abort());

process.exitCode = await main(process.argv.slice(2), process.env, { signal: interrupted.signal });
