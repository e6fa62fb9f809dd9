import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { type EnumMapping, messageRoot } from '../src/index.js';
import * as runs from '../src/enums/runs.js';

describe('policyhub.runs.v1 enum tables', () => {
  it('every enum of the package has a table giving each non-zero value a distinct word', () => {
    const pkg = messageRoot().lookup('policyhub.runs.v1') as protobuf.Namespace;
    const enums = pkg.nestedArray.filter((o): o is protobuf.Enum => o instanceof protobuf.Enum);
    expect(enums.length).toBeGreaterThan(0);
    const tables = new Map(
      Object.values(runs as Record<string, EnumMapping<string, string>>).map((t) => [t.name, t]),
    );
    for (const e of enums) {
      const table = tables.get(e.name);
      expect(table, e.name).toBeDefined();
      const [zero, ...values] = Object.keys(e.values);
      expect(zero).toMatch(/_UNSPECIFIED$/);
      expect(values.map((v) => table!.fromWord(table!.toWord(v)))).toEqual(values);
      expect(new Set(table!.words).size).toBe(values.length);
    }
    expect([...tables.keys()].sort()).toEqual(enums.map((e) => e.name).sort());
  });
});
