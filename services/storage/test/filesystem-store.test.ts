import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { FilesystemObjectStore } from '../src/objects/filesystem-store.js';
import { objectStoreContract } from './support/object-store-contract.js';

const roots: string[] = [];
const freshRoot = () => {
  const root = mkdtempSync(join(tmpdir(), 'policyhub-objects-'));
  roots.push(root);
  return root;
};

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

objectStoreContract('filesystem', async () => new FilesystemObjectStore(freshRoot()));

describe('filesystem object store', () => {
  it('leaves no temporary file behind after a failed put', async () => {
    const root = freshRoot();
    const store = new FilesystemObjectStore(root);
    await expect(
      store.put('acme/runs/run-1/plan.json', Readable.from([Buffer.from('abc')]), 10),
    ).rejects.toThrow();
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('refuses a key that would leave its root', async () => {
    const store = new FilesystemObjectStore(freshRoot());
    await expect(store.put('../outside', Readable.from([]), 0)).rejects.toThrow(/escapes/);
  });
});
