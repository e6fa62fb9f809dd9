import { createHash } from 'node:crypto';
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

  it('writes an object invisibly until it is published, then atomically under its key', async () => {
    const root = freshRoot();
    const store = new FilesystemObjectStore(root);
    const key = 'acme/policy-sets/polset-1/versions/polsetver-1.tar.gz';
    const writer = await store.openWriter(key, { keepAliveMs: 60_000 });
    await writer.write(Buffer.from('hello '));
    await writer.write(Buffer.from('world'));
    expect(await store.stat(key)).toBeUndefined();
    expect(await writer.seal()).toBe(createHash('sha256').update('hello world').digest('hex'));
    expect(writer.sizeBytes).toBe(11);
    // Sealed (durable) is not visible yet: only publish makes it so.
    expect(await store.stat(key)).toBeUndefined();
    expect(await store.list('acme/')).toEqual([]);
    await writer.publish();
    expect(await store.stat(key)).toEqual({ size: 11 });
    await writer.discard();
    expect(await store.stat(key)).toEqual({ size: 11 });
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('discards an unpublished object without a trace; a live one is never swept as stale', async () => {
    const root = freshRoot();
    const store = new FilesystemObjectStore(root);
    const key = 'acme/runs/run-1/plan.json';
    const live = await store.openWriter(key, { keepAliveMs: 20 });
    await live.write(Buffer.from('partial'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Its temporary file is kept fresh while the writer lives, however slow the sender.
    expect(await store.removeStaleTemporaries(100)).toBe(0);
    expect(readdirSync(join(root, '.tmp'))).toHaveLength(1);
    await live.discard();
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
    expect(await store.stat(key)).toBeUndefined();
  });

  it('refuses a key that would leave its root', async () => {
    const store = new FilesystemObjectStore(freshRoot());
    await expect(store.put('../outside', Readable.from([]), 0)).rejects.toThrow(/escapes/);
  });
});
