import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RunFacts } from '../engine.js';
import { runData } from '../run-data.js';

/**
 * Writes upstream's input document, `{"plan": <the plan JSON>, "run": <runData>}`, to `file`
 * (0600, never an existing file). The plan's bytes are copied as they are, streamed: a plan of
 * 100 MiB is never parsed or held in memory here.
 */
export async function writeInputDocument(planFile: string, run: RunFacts, file: string): Promise<void> {
  async function* document() {
    yield Buffer.from('{"plan":');
    for await (const chunk of createReadStream(planFile)) yield chunk as Buffer;
    yield Buffer.from(`,"run":${JSON.stringify(runData(run))}}`);
  }
  await pipeline(Readable.from(document()), createWriteStream(file, { mode: 0o600, flags: 'wx' }));
}
