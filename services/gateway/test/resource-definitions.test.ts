import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { RESOURCE_DEFINITIONS } from '../src/resources/index.js';
import type { PolicySetObject } from '../src/resources/policy-sets/serializer.js';
import type { ResourceDefinition } from '../src/schemas/resources.js';

/**
 * Each resource folder's `schema.ts` is the one definition of its wire shape (ADR 0040): the
 * registry must hold every one of them, and a serializer's object must be exactly its schema's
 * static type.
 */
const RESOURCES = new URL('../src/resources/', import.meta.url);

const isDefinition = (value: unknown): value is ResourceDefinition =>
  typeof value === 'object' && value !== null && '$id' in value && 'served' in value;

describe('resource definitions', () => {
  it("registers every resource folder's definitions, each once", async () => {
    const folders = (await readdir(RESOURCES, { withFileTypes: true })).filter((e) => e.isDirectory());
    const defined: string[] = [];
    for (const { name } of folders) {
      const file = new URL(`${name}/schema.ts`, RESOURCES);
      if (!existsSync(file)) continue;
      const exports: Record<string, unknown> = await import(file.href);
      defined.push(
        ...Object.values(exports)
          .filter(isDefinition)
          .map((d) => d.$id),
      );
    }
    const registered = RESOURCE_DEFINITIONS.map((d) => d.$id);
    expect(new Set(registered).size).toBe(registered.length);
    expect(registered.toSorted()).toEqual(defined.toSorted());
    expect(defined.length).toBeGreaterThan(15);
  });

  it("types a serializer's object by its schema (the @ts-expect-error lines below are the test)", () => {
    // Run by the typecheck: each assignment compiles only if the schema allows it.
    const check = (valid: PolicySetObject) => {
      const { 'policies-path': _path, ...withoutPath } = valid.attributes;
      // @ts-expect-error an attribute the schema lists is missing
      const missing: PolicySetObject['attributes'] = withoutPath;
      // @ts-expect-error an attribute of another type than the schema's
      const mistyped: PolicySetObject['attributes'] = { ...valid.attributes, 'policies-path': 5 };
      // @ts-expect-error an attribute the schema does not list
      const extra: PolicySetObject['attributes'] = { ...valid.attributes, 'policies-paths': null };
      // @ts-expect-error a word outside the enum (serializers speak the canonical vocabulary)
      const word: PolicySetObject['attributes'] = { ...valid.attributes, kind: 'sentinel' };
      const global: PolicySetObject['relationships'] = { ...valid.relationships };
      // A global set leaves out workspaces and projects (the schema's other shape).
      delete global.workspaces;
      delete global.projects;
      return [missing, mistyped, extra, word, global];
    };
    expect(check).toBeTypeOf('function');
  });
});
