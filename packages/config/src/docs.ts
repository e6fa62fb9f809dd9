import { z } from 'zod';

/** What docs/configuration.md says about a variable; attached to its schema with `documented`. */
export interface ConfigDoc {
  description: string;
  /** The default as a reader should see it, when the schema's own value says too little. */
  default?: string;
  /** A switch for tests only: listed apart, and not counted among the operator's settings. */
  testOnly?: true;
}

export const configDocs = z.registry<ConfigDoc>();

/** Attaches the documentation of a variable to its schema (the same instance is returned). */
export function documented<T extends z.ZodType>(schema: T, description: string, shownDefault?: string): T {
  configDocs.add(
    schema as z.ZodType,
    shownDefault === undefined ? { description } : { description, default: shownDefault },
  );
  return schema;
}

/** Documents a switch that exists for tests only (see `ConfigDoc.testOnly`). */
export function testOnly<T extends z.ZodType>(schema: T, description: string): T {
  configDocs.add(schema as z.ZodType, { description, testOnly: true });
  return schema;
}

export interface ConfigRow {
  name: string;
  testOnly: boolean;
  description: string;
  /** `required`, a default value, or what happens when the variable is unset. */
  default: string;
}

/** One row per variable of a shape, in declaration order; throws for an undocumented one. */
export function describeConfig(shape: z.ZodRawShape): ConfigRow[] {
  return Object.entries(shape).map(([name, schema]) => {
    const doc = configDocs.get(schema as z.ZodType);
    if (!doc) throw new Error(`${name}: no documentation (wrap its schema in documented())`);
    return {
      name,
      testOnly: doc.testOnly === true,
      description: doc.description,
      default: doc.default ?? defaultOf(schema as z.ZodType),
    };
  });
}

function defaultOf(schema: z.ZodType): string {
  type Inner = { _zod: { def: Record<string, unknown>; optin?: string } };
  let current = schema as unknown as Inner;
  // Transforms and refinements wrap the schema that holds the default.
  for (let i = 0; i < 10; i++) {
    const def = current._zod.def;
    if (def.type === 'default') return `\`${String(def.defaultValue)}\``;
    if (def.type !== 'pipe') break;
    current = def.in as Inner;
  }
  return (schema as unknown as Inner)._zod.optin === 'optional' ? 'unset' : 'required';
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A Markdown table of the rows. */
export function configTable(rows: ConfigRow[]): string {
  return [
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows.map((r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.description)} |`),
  ].join('\n');
}
