import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ObjectNotFoundError, type ObjectStore } from '../../src/objects/object-store.js';

const read = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A stream of `size` bytes delivered in small chunks, as an upload arrives. */
const chunked = (data: Buffer, chunkSize = 16 * 1024): Readable =>
  Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += chunkSize) yield data.subarray(i, i + chunkSize);
    })(),
  );

/**
 * The behaviour every ObjectStore adapter must have (objects/object-store.ts). Each adapter's test
 * file calls this with a factory for a fresh, empty store.
 */
export function objectStoreContract(name: string, makeStore: () => Promise<ObjectStore>): void {
  describe(`${name} object store (adapter contract)`, () => {
    const org = () => `org-${randomBytes(4).toString('hex')}`;

    it('stores a streamed object of known size and streams it back byte for byte', async () => {
      const store = await makeStore();
      const data = randomBytes(300 * 1024 + 7);
      const key = `${org()}/policy-sets/polset-1/versions/polsetver-1.tar.gz`;
      await store.put(key, chunked(data), data.length, 'application/gzip');
      expect(await store.stat(key)).toEqual({ size: data.length });
      expect((await read(await store.get(key))).equals(data)).toBe(true);
    });

    it('stores an empty object', async () => {
      const store = await makeStore();
      const key = `${org()}/runs/run-1/plan.json`;
      await store.put(key, Readable.from([]), 0);
      expect(await store.stat(key)).toEqual({ size: 0 });
      expect((await read(await store.get(key))).length).toBe(0);
    });

    it('replaces an existing object', async () => {
      const store = await makeStore();
      const key = `${org()}/runs/run-1/plan.json`;
      await store.put(key, chunked(Buffer.from('first version')), 13);
      await store.put(key, chunked(Buffer.from('second')), 6);
      expect((await read(await store.get(key))).toString()).toBe('second');
    });

    it('reports a missing object as ObjectNotFoundError on get and undefined on stat', async () => {
      const store = await makeStore();
      const key = `${org()}/nothing/here.tar.gz`;
      await expect(store.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
      expect(await store.stat(key)).toBeUndefined();
    });

    it('refuses a body whose length differs from the declared size and keeps nothing', async () => {
      const store = await makeStore();
      const key = `${org()}/runs/run-1/plan.json`;
      await expect(store.put(key, chunked(Buffer.from('12345')), 9)).rejects.toThrow();
      await expect(store.put(key, chunked(Buffer.from('123456789')), 5)).rejects.toThrow();
      expect(await store.stat(key)).toBeUndefined();
    });

    it('lists and deletes by key and by prefix, ignoring missing keys', async () => {
      const store = await makeStore();
      const a = org();
      const b = org();
      const keys = [
        `${a}/policy-sets/polset-1/versions/v1.tar.gz`,
        `${a}/policy-sets/polset-1/versions/v2.tar.gz`,
        `${a}/policy-sets/polset-2/versions/v3.tar.gz`,
        `${a}/runs/run-1/plan.json`,
        `${b}/policy-sets/polset-1/versions/v1.tar.gz`,
      ];
      for (const key of keys) await store.put(key, chunked(Buffer.from(key)), key.length);
      expect((await store.list(`${a}/policy-sets/`)).sort()).toEqual(keys.slice(0, 3));

      await store.deletePrefix(`${a}/policy-sets/polset-1/`);
      expect((await store.list(`${a}/`)).sort()).toEqual([keys[2], keys[3]]);

      await store.delete([keys[3]!, `${a}/does/not/exist.json`]);
      expect(await store.list(`${a}/`)).toEqual([keys[2]]);

      await store.deletePrefix(`${a}/`);
      await store.deletePrefix(`${a}/`);
      expect(await store.list(`${a}/`)).toEqual([]);
      expect(await store.list(`${b}/`)).toEqual([keys[4]]);
    });

    it('deletes by a prefix that ends inside a key segment', async () => {
      const store = await makeStore();
      const a = org();
      const keep = `${a}/runs/run-10/plan.json`;
      const drop = `${a}/runs/run-1/plan.json`;
      for (const key of [keep, drop]) await store.put(key, chunked(Buffer.from('x')), 1);
      await store.deletePrefix(`${a}/runs/run-1/`);
      expect(await store.list(`${a}/runs/run-1`)).toEqual([keep]);
    });
  });
}
