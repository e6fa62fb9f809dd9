/**
 * One two-way table per proto enum, between its value names (what the loader hands out with
 * `enums: String`, e.g. `POLICY_SET_KIND_SENTINEL`) and the word the services store and the API
 * serves (`sentinel`). The service and the gateway use the same table, so a new enum value is
 * added in one place; `satisfies Record<…>` at the definition makes a missing value a compile error.
 * The `*_UNSPECIFIED` zero value has no word: reading it is a bug, never user input.
 */
/**
 * The shape a word table must have for the enum `E`: one word per value except the zero value
 * (`*_UNSPECIFIED`). Tables are declared `{ … } as const satisfies EnumWords<E>`, so a value the
 * table forgets, or one the enum no longer has, is a compile error.
 */
export type EnumWords<E> = Record<Exclude<Extract<E, string>, `${string}_UNSPECIFIED`>, string>;

export interface EnumMapping<P extends string, W extends string> {
  /** The enum's name, for error messages. */
  readonly name: string;
  /** Every word, in declaration order (for schemas and validation messages). */
  readonly words: readonly W[];
  /** The word of an enum value; throws on the zero value or a name outside the table. */
  toWord(value: string): W;
  /** The enum value of a word, or `undefined` when the word is not one of `words`. */
  fromWord(word: string): P | undefined;
  /** `fromWord` for words that were already validated; throws when the word is unknown. */
  fromKnownWord(word: string): P;
}

export function enumMapping<const T extends Record<string, string>>(
  name: string,
  table: T,
): EnumMapping<Extract<keyof T, string>, T[keyof T]> {
  type P = Extract<keyof T, string>;
  type W = T[keyof T];
  const toWord = new Map<string, W>();
  const fromWord = new Map<string, P>();
  for (const [value, word] of Object.entries(table) as [P, W][]) {
    toWord.set(value, word);
    fromWord.set(word, value);
  }
  return {
    name,
    words: [...toWord.values()],
    toWord(value) {
      const word = toWord.get(value);
      if (word === undefined) throw new Error(`${name}: no word for enum value ${JSON.stringify(value)}`);
      return word;
    },
    fromWord: (word) => fromWord.get(word),
    fromKnownWord(word) {
      const value = fromWord.get(word);
      if (value === undefined) throw new Error(`${name}: unknown word ${JSON.stringify(word)}`);
      return value;
    },
  };
}
