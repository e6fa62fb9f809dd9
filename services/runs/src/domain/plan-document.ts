import { Tokenizer, TokenizerError, TokenType } from '@streamparser/json';
import { AppError, invalidAttribute } from '@policyhub/errors';

/**
 * What a run's plan tells about its resources, counted from `resource_changes[*].change.actions`
 * as upstream counts them: a replace (`["delete","create"]` or `["create","delete"]`) is one
 * addition and one destruction; `update` is a change; `read`/`no-op` count for nothing. Imports
 * are the changes that carry an `importing` object.
 */
export interface PlanSummary {
  resourceAdditions: number;
  resourceChanges: number;
  resourceDestructions: number;
  resourceImports: number;
  hasChanges: boolean;
}

export const EMPTY_SUMMARY: PlanSummary = {
  resourceAdditions: 0,
  resourceChanges: 0,
  resourceDestructions: 0,
  resourceImports: 0,
  hasChanges: false,
};

class Counter {
  additions = 0;
  changes = 0;
  destructions = 0;
  imports = 0;

  add(actions: readonly string[], importing: boolean): void {
    if (actions.includes('create')) this.additions++;
    if (actions.includes('update')) this.changes++;
    if (actions.includes('delete')) this.destructions++;
    if (importing) this.imports++;
  }

  summary(): PlanSummary {
    return {
      resourceAdditions: this.additions,
      resourceChanges: this.changes,
      resourceDestructions: this.destructions,
      resourceImports: this.imports,
      hasChanges: this.additions + this.changes + this.destructions + this.imports > 0,
    };
  }
}

/**
 * Counts what an already parsed plan document holds, leniently (the executor's gRPC API accepts
 * any JSON object): entries that do not have the documented shape are skipped.
 */
export function summarizeParsedPlan(plan: Record<string, unknown>): PlanSummary {
  const counter = new Counter();
  const changes = Array.isArray(plan.resource_changes) ? plan.resource_changes : [];
  for (const rc of changes) {
    const change = (rc as { change?: { actions?: unknown; importing?: unknown } } | null)?.change;
    const actions = Array.isArray(change?.actions)
      ? change.actions.filter((a): a is string => typeof a === 'string')
      : [];
    counter.add(actions, typeof change?.importing === 'object' && change.importing !== null);
  }
  return counter.summary();
}

const invalidPlan = (pointer: string, detail: string) =>
  invalidAttribute('RUNS_INVALID_PLAN_DOCUMENT', pointer, detail);

/** Longer property names are cut in pointers, so an error never echoes a huge name back. */
const POINTER_SEGMENT_CHARS = 256;

/** `/resource_changes/3/change/actions` from path segments (RFC 6901 escaping). */
const pointerOf = (path: ReadonlyArray<string | number>): string =>
  path.length === 0
    ? '/'
    : path
        .map((s) => {
          const text = String(s);
          const cut = text.length > POINTER_SEGMENT_CHARS ? `${text.slice(0, POINTER_SEGMENT_CHARS)}…` : text;
          return `/${cut.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        })
        .join('');

const JSON_KIND: Partial<Record<TokenType, string>> = {
  [TokenType.LEFT_BRACE]: 'an object',
  [TokenType.LEFT_BRACKET]: 'an array',
  [TokenType.STRING]: 'a string',
  [TokenType.NUMBER]: 'a number',
  [TokenType.TRUE]: 'a boolean',
  [TokenType.FALSE]: 'a boolean',
  [TokenType.NULL]: 'null',
};

/**
 * What one plan document may hold, so that a hostile document costs its sender, never the server:
 * the validator's memory is bounded by these, whatever the size of the body. Real plans stay far
 * below every one of them (docs/security.md).
 */
export const PLAN_LIMITS = {
  /** Objects and arrays inside each other, the root object included. */
  depth: 64,
  /** One string or number, in bytes as sent (a string's escapes count as sent). */
  tokenBytes: 16 * 1024 * 1024,
  /** Property names of one object. */
  keysPerObject: 100_000,
  /**
   * Property names held at once to find duplicates: the names of every object still open, each
   * charged its length plus a fixed overhead. Freed as each object closes.
   */
  heldKeyBytes: 32 * 1024 * 1024,
} as const;

/** Bytes charged per held property name beyond its characters (the set entry's overhead). */
const KEY_OVERHEAD_BYTES = 32;
/** The tokenizer sees at most this much at once, so the limits are checked at least this often. */
const SLICE_BYTES = 64 * 1024;

const MiB = 1024 * 1024;
const inMiB = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);

interface Frame {
  kind: 'object' | 'array';
  /** Key of this container in its parent (index in arrays); undefined for the root. */
  key: string | number | undefined;
  /** Inside an object: the key whose value comes next / came last. Inside an array: next index. */
  member: string | number | undefined;
  expect: 'key' | 'colon' | 'value' | 'comma-or-end' | 'value-or-end' | 'key-or-end';
  /** An object's property names so far (created at its first name). */
  keys?: Set<string>;
  /** What this object's names are charged against PLAN_LIMITS.heldKeyBytes. */
  keyBytes?: number;
}

/** The parts of one `resource_changes` element that are checked; filled while it streams by. */
interface ChangeEntry {
  index: number;
  address: boolean;
  type: boolean;
  change: boolean;
  actions: string[] | undefined;
  importing: boolean;
}

/**
 * Numbers are only typed, never read: the digits are not converted (for a long number still
 * arriving, the tokenizer would convert them again at every chunk).
 */
class PlanTokenizer extends Tokenizer {
  protected override parseNumber(): number {
    return 0;
  }
}

/**
 * Validates a `terraform show -json` plan document while it streams by, holding only the
 * container stack and the current `resource_changes` element's actions, never the document.
 *
 * Checked (everything else is passed through untouched): the document is one JSON value and an
 * object; `format_version` is a string; `resource_changes` is an array of objects whose
 * `address` and `type` are strings, whose `change` is an object and `change.actions` an array of
 * strings. Each property name appears once per object (engines that read a plan keep only one of
 * two equal names, so a duplicate could show a policy something other than what was counted).
 * PLAN_LIMITS bound nesting, string and number length, and names per object. The first problem
 * throws a 422 whose pointer names the offending place in the document (a syntax error names
 * where it happened). `write` may be called with chunks split anywhere, also inside a UTF-8
 * character.
 */
export class PlanDocumentValidator {
  // Partial tokens report a long string or number while it streams in, so its length is checked
  // before it is whole (the tokenizer would otherwise buffer it to any size).
  private readonly tokenizer = new PlanTokenizer({ emitPartialTokens: true });
  private readonly stack: Frame[] = [];
  private bytesWritten = 0;
  private heldKeyBytes = 0;
  private tooLong: AppError | undefined;
  private readonly counter = new Counter();
  private state: 'start' | 'inside' | 'done' = 'start';
  private formatVersion: 'absent' | 'ok' = 'absent';
  private resourceChanges: 'absent' | 'ok' = 'absent';
  private entry: ChangeEntry | undefined;
  private failure: AppError | undefined;

  constructor() {
    this.tokenizer.onToken = ({ token, value, offset, partial }) => {
      if (partial) this.checkTokenLength(token, offset);
      else this.onToken(token, value);
    };
    this.tokenizer.onError = (err) => {
      throw err;
    };
  }

  write(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    try {
      for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
        const slice = chunk.subarray(at, at + SLICE_BYTES);
        this.bytesWritten += slice.length;
        this.tokenizer.write(slice);
        // The tokenizer swallows what a partial number's callback throws: the refusal is kept here.
        if (this.tooLong) throw this.tooLong;
      }
    } catch (err) {
      throw this.fail(err);
    }
  }

  /** The document ended: anything still missing is a problem. Returns the counts. */
  end(): PlanSummary {
    if (this.failure) throw this.failure;
    if (this.state === 'start')
      throw this.fail(
        invalidPlan('/', 'the plan is empty; send the JSON document of `terraform show -json`'),
      );
    if (this.state !== 'done') {
      throw this.fail(invalidPlan(this.here(), 'the plan JSON ends in the middle of the document'));
    }
    try {
      this.tokenizer.end();
    } catch (err) {
      throw this.fail(err);
    }
    if (this.formatVersion === 'absent') {
      throw this.fail(invalidPlan('/format_version', 'format_version is required (a string)'));
    }
    if (this.resourceChanges === 'absent') {
      throw this.fail(invalidPlan('/resource_changes', 'resource_changes is required (an array)'));
    }
    return this.counter.summary();
  }

  private fail(err: unknown): AppError {
    if (!this.failure) {
      this.failure = err instanceof AppError ? err : invalidPlan(this.here(), this.describeSyntaxError(err));
    }
    return this.failure;
  }

  /** The tokenizer's complaint in a user's words (its own messages name its internal states). */
  private describeSyntaxError(err: unknown): string {
    if (this.state === 'start') {
      return 'the plan is not JSON: send the output of `terraform show -json <plan file>`, not the plan file itself';
    }
    const message = err instanceof Error ? err.message : '';
    const unexpected = /^Unexpected "([\s\S]*)" at chunk position "\d+" \(absolute position "(\d+)"\)/.exec(
      message,
    );
    if (unexpected) {
      const char = unexpected[1]!;
      const shown = /^[\x21-\x7e]$/.test(char)
        ? `"${char}"`
        : `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
      return `the plan is not valid JSON: unexpected ${shown} at byte ${unexpected[2]}`;
    }
    if (err instanceof TypeError) return 'the plan is not valid UTF-8 text';
    if (err instanceof TokenizerError) return 'the plan is not valid JSON: it ends in the middle of a value';
    return 'the plan is not valid JSON';
  }

  /** Path segments of the value being read now. */
  private path(): Array<string | number> {
    const segments: Array<string | number> = [];
    for (const frame of this.stack.slice(1)) segments.push(frame.key!);
    const top = this.stack.at(-1);
    if (top && top.member !== undefined && top.expect !== 'key' && top.expect !== 'key-or-end') {
      segments.push(top.member);
    }
    return segments;
  }

  private here(): string {
    return pointerOf(this.path());
  }

  private syntax(detail: string): AppError {
    return invalidPlan(this.here(), `the plan is not valid JSON: ${detail}`);
  }

  /** A string or number still arriving: refused once it is longer than PLAN_LIMITS.tokenBytes. */
  private checkTokenLength(token: TokenType, offset: number): void {
    if (token !== TokenType.STRING && token !== TokenType.NUMBER) return;
    if (this.bytesWritten - offset <= PLAN_LIMITS.tokenBytes) return;
    const what = token === TokenType.NUMBER ? 'a number' : 'a string';
    const top = this.stack.at(-1);
    const isName = token === TokenType.STRING && (top?.expect === 'key' || top?.expect === 'key-or-end');
    this.tooLong = this.limit(
      `${isName ? 'a property name' : what} in the plan is longer than ${inMiB(PLAN_LIMITS.tokenBytes)}`,
    );
    throw this.tooLong;
  }

  /** A 422 for a passed limit, at the place being read, saying what the limit is for. */
  private limit(detail: string): AppError {
    return invalidPlan(this.here(), `${detail}; PolicyHub refuses such plans (docs/security.md, "Limits")`);
  }

  /** Remembers an object's property name; refuses a repeated one and objects with too many. */
  private addKey(top: Frame, name: string): void {
    top.keys ??= new Set();
    if (top.keys.has(name)) {
      throw invalidPlan(
        this.here(),
        `the property name "${name.length > 200 ? `${name.slice(0, 200)}…` : name}" appears twice in one object; a plan names each property once`,
      );
    }
    if (top.keys.size >= PLAN_LIMITS.keysPerObject) {
      throw this.limit(`an object in the plan has more than ${PLAN_LIMITS.keysPerObject} properties`);
    }
    const charge = name.length * 2 + KEY_OVERHEAD_BYTES;
    this.heldKeyBytes += charge;
    top.keyBytes = (top.keyBytes ?? 0) + charge;
    if (this.heldKeyBytes > PLAN_LIMITS.heldKeyBytes) {
      throw this.limit(
        `the objects open at this place hold more than ${inMiB(PLAN_LIMITS.heldKeyBytes)} of property names`,
      );
    }
    top.keys.add(name);
  }

  private onToken(token: TokenType, value: unknown): void {
    if (this.state === 'done') throw this.syntax('unexpected data after the end of the document');
    const top = this.stack.at(-1);
    if (!top) {
      if (token !== TokenType.LEFT_BRACE) {
        throw invalidPlan(
          '/',
          `the plan must be a JSON object (the document of \`terraform show -json\`), not ${JSON_KIND[token] ?? 'that'}`,
        );
      }
      this.state = 'inside';
      this.stack.push({ kind: 'object', key: undefined, member: undefined, expect: 'key-or-end' });
      return;
    }
    switch (top.expect) {
      case 'key':
      case 'key-or-end':
        if (token === TokenType.STRING) {
          top.member = value as string;
          top.expect = 'colon';
          this.addKey(top, value as string);
          return;
        }
        if (token === TokenType.RIGHT_BRACE && top.expect === 'key-or-end') {
          this.close();
          return;
        }
        throw this.syntax('expected a property name');
      case 'colon':
        if (token === TokenType.COLON) {
          top.expect = 'value';
          return;
        }
        throw this.syntax('expected ":"');
      case 'comma-or-end':
        if (token === TokenType.COMMA) {
          if (top.kind === 'array') {
            top.member = (top.member as number) + 1;
            top.expect = 'value';
          } else {
            top.expect = 'key';
          }
          return;
        }
        if (
          (token === TokenType.RIGHT_BRACE && top.kind === 'object') ||
          (token === TokenType.RIGHT_BRACKET && top.kind === 'array')
        ) {
          this.close();
          return;
        }
        throw this.syntax(top.kind === 'object' ? 'expected "," or "}"' : 'expected "," or "]"');
      case 'value':
      case 'value-or-end':
        if (token === TokenType.RIGHT_BRACKET && top.expect === 'value-or-end') {
          this.close();
          return;
        }
        this.value(top, token, value);
    }
  }

  private value(top: Frame, token: TokenType, value: unknown): void {
    if (JSON_KIND[token] === undefined) throw this.syntax('expected a value');
    this.check(token, value);
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (this.stack.length >= PLAN_LIMITS.depth) {
        throw this.limit(`the plan nests objects and arrays more than ${PLAN_LIMITS.depth} levels deep`);
      }
      const isObject = token === TokenType.LEFT_BRACE;
      this.stack.push({
        kind: isObject ? 'object' : 'array',
        key: top.member,
        member: isObject ? undefined : 0,
        expect: isObject ? 'key-or-end' : 'value-or-end',
      });
      top.expect = 'comma-or-end';
      return;
    }
    top.expect = 'comma-or-end';
  }

  /** Type rules for the value that starts with this token, by where it stands. */
  private check(token: TokenType, value: unknown): void {
    // Only the first five levels are checked; deeper values pass untouched (and cheaply).
    if (this.stack.length > 5) return;
    const path = this.path();
    const depth = path.length;
    const wrong = (expected: string) => {
      throw invalidPlan(pointerOf(path), `${path.at(-1)} must be ${expected}, not ${JSON_KIND[token]}`);
    };
    if (depth === 1) {
      if (path[0] === 'format_version') {
        if (token !== TokenType.STRING) wrong('a string');
        this.formatVersion = 'ok';
      } else if (path[0] === 'resource_changes') {
        if (token !== TokenType.LEFT_BRACKET) wrong('an array');
        this.resourceChanges = 'ok';
      }
      return;
    }
    if (path[0] !== 'resource_changes') return;
    if (depth === 2) {
      if (token !== TokenType.LEFT_BRACE) {
        throw invalidPlan(
          pointerOf(path),
          `each element of resource_changes must be an object, not ${JSON_KIND[token]}`,
        );
      }
      this.entry = {
        index: path[1] as number,
        address: false,
        type: false,
        change: false,
        actions: undefined,
        importing: false,
      };
      return;
    }
    const entry = this.entry!;
    if (depth === 3) {
      if (path[2] === 'address') {
        if (token !== TokenType.STRING) wrong('a string');
        entry.address = true;
      } else if (path[2] === 'type') {
        if (token !== TokenType.STRING) wrong('a string');
        entry.type = true;
      } else if (path[2] === 'change') {
        if (token !== TokenType.LEFT_BRACE) wrong('an object');
        entry.change = true;
      }
      return;
    }
    if (path[2] !== 'change') return;
    if (depth === 4) {
      if (path[3] === 'actions') {
        if (token !== TokenType.LEFT_BRACKET) wrong('an array of strings');
        entry.actions = [];
      } else if (path[3] === 'importing') {
        entry.importing = token === TokenType.LEFT_BRACE;
      }
      return;
    }
    if (depth === 5 && path[3] === 'actions') {
      if (token !== TokenType.STRING) {
        throw invalidPlan(pointerOf(path), `change.actions must hold strings, not ${JSON_KIND[token]}`);
      }
      entry.actions?.push(value as string);
    }
  }

  private close(): void {
    const closed = this.stack.pop()!;
    this.heldKeyBytes -= closed.keyBytes ?? 0;
    const isChangeEntry = this.stack.length === 2 && this.stack[1]!.key === 'resource_changes';
    if (isChangeEntry && typeof closed.key === 'number' && this.entry) {
      const entry = this.entry;
      const at = `/resource_changes/${entry.index}`;
      if (!entry.address) throw invalidPlan(`${at}/address`, 'address is required (a string)');
      if (!entry.type) throw invalidPlan(`${at}/type`, 'type is required (a string)');
      if (!entry.change) throw invalidPlan(`${at}/change`, 'change is required (an object with actions)');
      if (!entry.actions)
        throw invalidPlan(`${at}/change/actions`, 'change.actions is required (an array of strings)');
      this.counter.add(entry.actions, entry.importing);
      this.entry = undefined;
    }
    if (this.stack.length === 0) this.state = 'done';
  }
}
