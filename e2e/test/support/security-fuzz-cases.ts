import type { AttributeKind, Endpoint, PreparedCall } from './route-catalog.js';
import type { Prng } from './security-prng.js';

/**
 * Hostile variants of one valid call. `reject`: the call must be refused (4xx); `any`: it may
 * be accepted (extra keys are ignored, an empty list is a no-op) but must never fail with a 5xx.
 */
export type Expectation = 'reject' | 'any';

/** The parts of a request a case may change. Path values are raw (encoded when sent) unless in `segments`. */
export interface RequestParts {
  params: Record<string, string>;
  /** Already-encoded path segments that replace a parameter verbatim (`%ZZ`, `..`). */
  segments: Record<string, string>;
  query: string;
  contentType: string | undefined;
  body: string | Uint8Array | undefined;
}

export interface FuzzCase {
  label: string;
  expect: Expectation;
  apply(base: RequestParts, call: PreparedCall): RequestParts;
}

const JSON_API = 'application/vnd.api+json';
const KB = 1024;
const DEEP = 10_000;
const HUGE_ARRAY = 20_000;

export function baseRequest(call: PreparedCall): RequestParts {
  if (call.raw) {
    return {
      params: call.params,
      segments: {},
      query: call.query ?? '',
      contentType: 'application/octet-stream',
      body: call.raw,
    };
  }
  return {
    params: call.params,
    segments: {},
    query: '',
    contentType: call.body === undefined ? undefined : JSON_API,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  };
}

/** The path with parameters encoded, or replaced by a verbatim segment. */
export function pathOf(endpoint: Endpoint, parts: RequestParts): string {
  const path = endpoint.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) =>
    name in parts.segments ? parts.segments[name]! : encodeURIComponent(parts.params[name] ?? ''),
  );
  return parts.query ? `${path}?${parts.query}` : path;
}

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const SENTINEL = '"__FUZZ_VALUE__"';
/**
 * The call's JSON document with the value at `path` replaced by raw JSON text (which may nest
 * deeper than JSON.stringify could write).
 */
function jsonWith(call: PreparedCall, path: string[], rawJson: string): string {
  const doc = structuredClone((call.body ?? {}) as Record<string, unknown>);
  let node: Record<string, unknown> = doc;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1)!] = '__FUZZ_VALUE__';
  return JSON.stringify(doc).replace(SENTINEL, () => rawJson);
}

const withBody =
  (body: string | Uint8Array, contentType = JSON_API) =>
  (base: RequestParts) => ({
    ...base,
    body,
    contentType,
  });

const WRONG_KINDS: Record<AttributeKind, string[]> = {
  string: ['123', 'true', '[]', '{}', '["a"]', '1.5'],
  boolean: ['"true"', '1', '0', '[]', '{}', '"false"'],
  integer: ['"5"', '1.5', 'true', '[]', '{}', '1e20', '-1'],
  object: ['"x"', '1', 'true', '[]', '[{}]'],
  'string-list': ['"x"', '1', 'true', '{}', '[1]', '[null]', '[{}]'],
};

const MALFORMED_JSON = [
  '{',
  '{"data":',
  '{"data": {"type": "x",}}',
  'nul',
  '[1,,2]',
  "{'data': 1}",
  '{"data": {}}}',
  '\uFEFF{"data": {}}',
  '{"data": "\\x41"}',
  '{"data": 01}',
  '{"data": NaN}',
];

/** Encoded path segments no resource can be named by (or that are not a valid URL at all). */
const PATH_VARIANTS: Array<(valid: string) => string> = [
  () => 'a'.repeat(5000),
  () => 'a'.repeat(299),
  () => '%C3%A9t%C3%A9',
  () => '%F0%9F%92%A9',
  () => '..',
  () => '%2E%2E',
  (v) => `${encodeURIComponent(v)}%00`,
  () => '%00',
  (v) => `${encodeURIComponent(v)}%2F..%2F..`,
  () => '%2F',
  () => '%ZZ',
  () => '%',
  () => '%ED%A0%80',
  () => '%27%20OR%20%271%27%3D%271',
  () => '%24%7B7*7%7D',
  (v) => `${encodeURIComponent(v)}%20`,
];

function documentStructureCases(endpoint: Endpoint, type: string): FuzzCase[] {
  const shape = endpoint.body.shape;
  const emptyTypeAllowed = endpoint.body.emptyTypeAllowed ?? false;
  const verdict = (forDocument: Expectation, forIdentifiers: Expectation, forOptional: Expectation) =>
    shape === 'document' ? forDocument : shape === 'identifiers' ? forIdentifiers : forOptional;
  const t = JSON.stringify(type);
  const cases: Array<[string, Expectation]> = [
    ['null', endpoint.body.optional ? 'any' : verdict('reject', 'reject', 'any')],
    ['[]', verdict('reject', 'reject', 'reject')],
    ['"x"', verdict('reject', 'reject', 'reject')],
    ['42', verdict('reject', 'reject', 'reject')],
    ['{}', verdict('reject', 'reject', 'any')],
    ['{"data":null}', verdict('reject', 'reject', 'any')],
    ['{"data":[]}', verdict('reject', 'any', 'any')],
    ['{"data":"x"}', verdict('reject', 'reject', 'any')],
    ['{"data":{}}', verdict(emptyTypeAllowed ? 'any' : 'reject', 'reject', 'any')],
    ['{"data":{"type":"nope"}}', verdict('reject', 'reject', 'any')],
    [`{"data":{"type":${t},"attributes":[]}}`, verdict('reject', 'reject', 'any')],
    [`{"data":{"type":${t},"attributes":"x"}}`, verdict('reject', 'reject', 'any')],
    [`{"data":{"type":${t},"relationships":[]}}`, verdict('reject', 'reject', 'any')],
    [`{"data":[{"type":${t},"id":"x"}]}`, verdict('reject', 'any', 'any')],
  ];
  return cases.map(([json, expect]) => ({ label: `body ${json}`, expect, apply: withBody(json) }));
}

function attributeCases(endpoint: Endpoint, prng: Prng): FuzzCase[] {
  const attributes = Object.entries(endpoint.body.attributes ?? {});
  if (attributes.length === 0) return [];
  const at = (name: string) => ['data', 'attributes', name];
  const cases: FuzzCase[] = [];
  for (const [name, kind] of prng.sample(attributes, 6)) {
    for (const wrong of prng.sample(WRONG_KINDS[kind], 2)) {
      cases.push({
        label: `attribute ${name} = ${wrong} (not ${kind})`,
        expect: 'reject',
        apply: (base, call) => ({ ...base, body: jsonWith(call, at(name), wrong) }),
      });
    }
  }
  const strings = attributes.filter(([, kind]) => kind === 'string').map(([name]) => name);
  for (const name of prng.sample(strings, 3)) {
    cases.push({
      label: `attribute ${name} = a 100 KB string`,
      expect: 'reject',
      apply: (base, call) => ({
        ...base,
        body: jsonWith(call, at(name), JSON.stringify('x'.repeat(100 * KB))),
      }),
    });
    cases.push({
      label: `attribute ${name} with a NUL character`,
      expect: 'reject',
      apply: (base, call) => ({ ...base, body: jsonWith(call, at(name), '"a\\u0000b"') }),
    });
  }
  if (strings.length > 0) {
    const name = prng.pick(strings);
    const odd = prng.pick(['"\\ud800"', '"\\u202e\\u0301"', '"💩 ünïcödé"', '"\\u0007\\u001b[31m"']);
    cases.push({
      label: `attribute ${name} = ${odd}`,
      expect: 'any',
      apply: (base, call) => ({ ...base, body: jsonWith(call, at(name), odd) }),
    });
  }
  const [deepName] = prng.pick(attributes);
  cases.push({
    label: `attribute ${deepName} nested ${DEEP} levels deep`,
    expect: 'reject',
    apply: (base, call) => ({ ...base, body: jsonWith(call, at(deepName), deepArray(DEEP)) }),
  });
  const [hugeName] = prng.pick(attributes);
  cases.push({
    label: `attribute ${hugeName} = an array of ${HUGE_ARRAY} strings`,
    expect: 'reject',
    apply: (base, call) => ({
      ...base,
      body: jsonWith(
        call,
        at(hugeName),
        JSON.stringify(Array.from({ length: HUGE_ARRAY }, (_, i) => `v${i}`)),
      ),
    }),
  });
  return cases;
}

function unknownFieldCases(): FuzzCase[] {
  const unknown: Array<[string, string[], string]> = [
    [
      'attributes.__proto__',
      ['data', 'attributes', '__proto__'],
      '{"is-site-admin":true,"global":true,"polluted":1}',
    ],
    ['attributes.constructor', ['data', 'attributes', 'constructor'], '{"prototype":{"polluted":1}}'],
    ['an unknown attribute nested deeply', ['data', 'attributes', 'x-unknown'], deepObject(DEEP)],
    ['top-level meta', ['meta'], '{"x":[1,2,3]}'],
    ['data.__proto__', ['data', '__proto__'], '{"type":"organizations"}'],
  ];
  return unknown.map(([label, path, json]) => ({
    label: `unknown field ${label}`,
    expect: 'any',
    apply: (base, call) => ({ ...base, body: jsonWith(call, path, json) }),
  }));
}

/** Elements of a relationship array (`{"data": [...]}`), at `path` in the document. */
function identifierListCases(path: string[], type: string, label: string): FuzzCase[] {
  const t = JSON.stringify(type);
  const list =
    (json: string): FuzzCase['apply'] =>
    (base, call) => ({
      ...base,
      body: path.length === 0 ? `{"data":${json}}` : jsonWith(call, [...path, 'data'], json),
    });
  const many = `[${Array.from({ length: HUGE_ARRAY }, (_, i) => `{"type":${t},"id":"id-${i}"}`).join(',')}]`;
  const cases: Array<[string, Expectation, string]> = [
    [`${HUGE_ARRAY} identifiers`, 'reject', many],
    ['an element of the wrong type', 'reject', '[{"type":"nope","id":"x"}]'],
    ['a string element', 'reject', '["x"]'],
    ['a numeric id', 'reject', `[{"type":${t},"id":7}]`],
    ['a 10,000 character id', 'reject', `[{"type":${t},"id":"${'i'.repeat(10_000)}"}]`],
    ['an id with a NUL character', 'reject', `[{"type":${t},"id":"x\\u0000"}]`],
    ['an element nested deeply', 'reject', `[${deepArray(DEEP)}]`],
    ['an object instead of a list', 'reject', `{"type":${t},"id":"x"}`],
    ['an unknown id', 'any', `[{"type":${t},"id":"unknown-0000000000000000"}]`],
  ];
  return cases.map(([what, expect, json]) => ({ label: `${label}: ${what}`, expect, apply: list(json) }));
}

function rawBodyCases(prng: Prng): FuzzCase[] {
  const random = prng.bytes(KB);
  return [
    {
      label: 'raw: 1 KiB of random bytes',
      expect: 'any',
      apply: withBody(random, 'application/octet-stream'),
    },
    { label: 'raw: empty', expect: 'any', apply: withBody(new Uint8Array(), 'application/octet-stream') },
    { label: 'raw: JSON', expect: 'any', apply: withBody('{"data":{}}', 'application/json') },
    {
      // Over the largest raw body any such route takes (policy code: 10 MiB, as upstream).
      label: 'raw: 11 MiB',
      expect: 'reject',
      apply: withBody(Buffer.alloc(11 * KB * KB, 7), 'application/octet-stream'),
    },
  ];
}

/** Hostile plan documents: wrong kinds where the plan is checked, deep nesting, huge and odd content. */
function planDocumentCases(prng: Prng): FuzzCase[] {
  const rc = (entry: string) => `{"format_version":"1.2","resource_changes":[${entry}]}`;
  const valid = '{"address":"a.b","type":"a","change":{"actions":["create"]}}';
  const cases: Array<[string, Expectation, string]> = [
    ['format_version a number', 'reject', '{"format_version":1.2,"resource_changes":[]}'],
    ['resource_changes an object', 'reject', '{"format_version":"1.2","resource_changes":{"a":1}}'],
    ['resource_changes missing', 'reject', '{"format_version":"1.2"}'],
    ['an element nested deeply', 'reject', rc(deepArray(DEEP))],
    ['address an object', 'reject', rc('{"address":{},"type":"a","change":{"actions":[]}}')],
    ['type null', 'reject', rc('{"address":"a","type":null,"change":{"actions":[]}}')],
    ['actions a string', 'reject', rc('{"address":"a","type":"a","change":{"actions":"create"}}')],
    ['actions holding numbers', 'reject', rc('{"address":"a","type":"a","change":{"actions":[1]}}')],
    ['trailing data', 'reject', `${rc(valid)} {}`],
    ['truncated', 'reject', rc(valid).slice(0, -5)],
    [
      'an unknown key nested deeply',
      'any',
      `{"format_version":"1.2","x":${deepObject(DEEP)},"resource_changes":[]}`,
    ],
    [
      '__proto__ keys',
      'any',
      `{"__proto__":{"polluted":1},"format_version":"1.2","resource_changes":[{"__proto__":{"polluted":1},"address":"a","type":"t","change":{"actions":[]}}]}`,
    ],
    [
      'NUL and odd characters',
      'any',
      rc('{"address":"a\\u0000\\ud800💩","type":"t","change":{"actions":["\\u202e"]}}'),
    ],
    [`${HUGE_ARRAY} changes`, 'any', rc(Array.from({ length: HUGE_ARRAY }, () => valid).join(','))],
  ];
  return prng.sample(cases, 8).map(([label, expect, json]) => ({
    label: `plan: ${label}`,
    expect,
    apply: withBody(json, 'application/json'),
  }));
}

function pathCases(endpoint: Endpoint, prng: Prng): FuzzCase[] {
  const names = [...endpoint.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  return names.flatMap((name) =>
    prng.sample(PATH_VARIANTS, 5).map(
      (variant): FuzzCase => ({
        label: `path :${name} = ${variant('<valid>').slice(0, 60)}`,
        expect: 'reject',
        apply: (base) => ({
          ...base,
          segments: { ...base.segments, [name]: variant(base.params[name] ?? '') },
        }),
      }),
    ),
  );
}

function queryCases(endpoint: Endpoint, prng: Prng): FuzzCase[] {
  const q = (label: string, expect: Expectation, query: string): FuzzCase => ({
    label: `query ${label}`,
    expect,
    apply: (base) => ({ ...base, query }),
  });
  const cases: FuzzCase[] = [
    q('with a NUL character', 'reject', 'search%5Bname%5D=%00'),
    q('with LIKE wildcards and a long value', 'any', `search%5Bname%5D=%25_%5C&q=${'x'.repeat(5000)}`),
    q('malformed and repeated keys', 'any', 'page%5Bsize%5D=5&page%5Bsize%5D=6&a%5Bb%5D%5Bc%5D=1&%ZZ=1&=&&'),
    q(
      'keys named after Object.prototype',
      'any',
      '__proto__%5Bx%5D=1&__proto__=1&constructor%5Bprototype%5D%5Bpolluted%5D=1&toString=1&hasOwnProperty=x&filter%5B__proto__%5D=true&search%5B__proto__%5D=1',
    ),
  ];
  if (endpoint.method !== 'GET') {
    cases.push(
      q(
        'page/include/filter junk on a write',
        'any',
        'page%5Bsize%5D=abc&include=nonsense&filter%5Bkind%5D=x',
      ),
    );
    return cases;
  }
  const spec = endpoint.query ?? {};
  if (spec.paginated) {
    for (const size of prng.sample(
      ['abc', '0', '-1', '101', '1e2', '99999999999999', '1.5', '%20', '0x10'],
      4,
    )) {
      cases.push(q(`page[size]=${size}`, 'reject', `page%5Bsize%5D=${size}`));
    }
    for (const number of prng.sample(['-1', '0', 'abc', '1.5', '1000001', '%2B1'], 3)) {
      cases.push(q(`page[number]=${number}`, 'reject', `page%5Bnumber%5D=${number}`));
    }
    cases.push(q('page[number]=999 (past the end)', 'any', 'page%5Bnumber%5D=999'));
  }
  if (spec.include) {
    for (const include of [
      'nonsense',
      'a%2Cnonsense',
      `${'x'.repeat(5000)}`,
      '..%2F..',
      'constructor',
      '__proto__',
      'toString',
    ]) {
      cases.push(q(`include=${include.slice(0, 30)}`, 'reject', `include=${include}`));
    }
    cases.push(q('include=,,,', 'any', 'include=%2C%2C%2C'));
  }
  for (const filter of spec.strictFilters ?? []) {
    const key = encodeURIComponent(filter);
    cases.push(q(`${filter}=x`, 'reject', `${key}=x`));
    cases.push(q(`${filter}=${'y'.repeat(30)}`, 'reject', `${key}=${'y'.repeat(30)}`));
    cases.push(q(`${filter}=constructor`, 'reject', `${key}=constructor`));
    cases.push(q(`${filter}=__proto__`, 'reject', `${key}=__proto__`));
  }
  return cases;
}

/** Every hostile variant of `endpoint` this run sends (the PRNG picks among the candidates). */
export function fuzzCases(endpoint: Endpoint, prng: Prng, documentType: string | undefined): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const shape = endpoint.body.shape;
  const isWrite = endpoint.method !== 'GET';
  if (isWrite && shape !== 'raw') {
    for (const json of prng.sample(MALFORMED_JSON, 3)) {
      cases.push({
        label: `malformed JSON ${JSON.stringify(json)}`,
        expect: 'reject',
        apply: withBody(json),
      });
    }
    cases.push({ label: 'random bytes as JSON', expect: 'reject', apply: withBody(prng.bytes(64)) });
    cases.push({
      label: 'a text/plain body',
      expect: 'reject',
      apply: (base) => ({ ...base, contentType: 'text/plain', body: base.body ?? '{}' }),
    });
  }
  if (shape === 'document' || shape === 'identifiers' || shape === 'optional-object') {
    cases.push(...documentStructureCases(endpoint, documentType ?? 'x'));
  }
  if (shape === 'document' || shape === 'optional-object') {
    cases.push(...attributeCases(endpoint, prng), ...unknownFieldCases());
  }
  for (const name of prng.sample(endpoint.body.relationships ?? [], 1)) {
    const type = name === 'workspace-exclusions' ? 'workspaces' : name;
    cases.push(...identifierListCases(['data', 'relationships', name], type, `relationship ${name}`));
  }
  if (shape === 'identifiers') cases.push(...identifierListCases([], documentType ?? 'x', 'identifiers'));
  if (shape === 'raw') cases.push(...rawBodyCases(prng));
  if (endpoint.body.planDocument) cases.push(...planDocumentCases(prng));
  cases.push(...pathCases(endpoint, prng), ...queryCases(endpoint, prng));
  return cases;
}
