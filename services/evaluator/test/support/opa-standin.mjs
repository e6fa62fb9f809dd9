#!/usr/bin/env node
// A STAND-IN FOR THE OPA CLI, FOR THE EVALUATOR'S TESTS ONLY. IT IS NOT A POLICY ENGINE.
//
// The real `opa` binary cannot be installed where these tests run, so this script answers the
// exact command lines the OPA adapter (src/engines/opa/) runs, in the formats OPA 1.x prints:
//
//   opa version
//   opa capabilities --current [--v0-compatible]
//   opa check --format json --capabilities FILE --bundle [--v0-compatible] DIR
//   opa eval --format json --capabilities FILE --bundle DIR --input FILE [--v0-compatible] QUERY
//
// It "evaluates" a tiny, fixed subset of Rego, line by line, enough to give the adapter passing,
// failing and erroring policies: `package`; `import rego.v1`, `import future.keywords…`,
// `import input[.path] as name`; rules `name contains TERM if { … }`, `name if { … }` (v1),
// `name[TERM] { … }`, `name { … }` (v0), `[default] name := <JSON literal>`; and in bodies, one
// statement per line: `x := <ref with [_]>` (one binding per element), `x := "text"`,
// `x := sprintf("…%v…", [refs])`, `<ref> == <literal>`, `<ref> != <literal>`, `print(…)`,
// `true`, `false`, and calls of other built-ins only to check them against the capabilities file.
// Syntax follows OPA 1.x: v1 needs `if` before a body; with --v0-compatible, `contains`/`if` need
// an `import rego.v1` or `future.keywords`. No data.json, no functions, no comprehensions, no
// `with`, no `not`, no `some`/`every`: anything else is reported as `standin_unsupported`, never
// guessed. Set values come out sorted, as OPA prints sets.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = process.env.OPA_STANDIN_VERSION ?? '1.4.2';
const BUILTINS = [
  'count',
  'sprintf',
  'print',
  'net.cidr_contains',
  'http.send',
  'net.lookup_ip_addr',
  'opa.runtime',
];

class RegoError extends Error {
  constructor(code, message, file, row) {
    super(message);
    this.code = code;
    this.location = file ? { file, row, col: 1 } : undefined;
  }
}

function unsupported(what) {
  process.stderr.write(`opa stand-in: ${what} is beyond what the adapter runs\n`);
  process.exit(64);
}

function asJson(err) {
  return { code: err.code, message: err.message, ...(err.location ? { location: err.location } : {}) };
}

function evalQuery(query) {
  let rules;
  try {
    rules = compile(flags.get('--bundle'));
  } catch (err) {
    if (!(err instanceof RegoError)) throw err;
    process.stdout.write(JSON.stringify({ errors: [asJson(err)] }));
    process.exit(2);
  }
  let input;
  try {
    input = JSON.parse(readFileSync(flags.get('--input'), 'utf8'));
  } catch (err) {
    process.stderr.write(`unable to parse input: ${err.message}\n`);
    process.exit(2);
  }
  const value = ruleValue(query, rules, input);
  const output =
    value === undefined
      ? {}
      : { result: [{ expressions: [{ value, text: query, location: { row: 1, col: 1 } }] }] };
  process.stdout.write(JSON.stringify(output, null, 2));
}

// --- loading and "compiling" -------------------------------------------------------------------

function regoFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return regoFiles(path);
    return name.endsWith('.rego') ? [path] : [];
  });
}

function compile(dir) {
  const v0 = flags.get('--v0-compatible') === true;
  const capabilitiesFile = flags.get('--capabilities');
  const allowed = new Set(
    capabilitiesFile
      ? JSON.parse(readFileSync(capabilitiesFile, 'utf8')).builtins.map((b) => b.name)
      : BUILTINS,
  );
  const rules = [];
  for (const file of regoFiles(dir))
    rules.push(...parseModule(file, readFileSync(file, 'utf8'), v0, allowed));
  return rules;
}

const stripComment = (line) => {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"' && line[i - 1] !== '\\') quoted = !quoted;
    if (line[i] === '#' && !quoted) return line.slice(0, i);
  }
  return line;
};

function parseModule(file, text, v0, allowed) {
  const lines = text.split('\n').map((l) => stripComment(l).trim());
  let pkg;
  let keywords = !v0;
  const aliases = new Map();
  const rules = [];
  let open;
  lines.forEach((line, i) => {
    const row = i + 1;
    const fail = (code, message) => {
      throw new RegoError(code, message, file, row);
    };
    if (line === '') return;
    if (open) {
      if (line === '}') {
        rules.push(open);
        open = undefined;
      } else open.body.push(statement(line, fail, allowed));
      return;
    }
    const forms = [
      [/^package ([\w.]+)$/, (m) => (pkg = m[1])],
      [/^import (rego\.v1|future\.keywords(\.\w+)?)$/, () => (keywords = true)],
      [/^import (input(?:\.[\w.]+)?) as (\w+)$/, (m) => aliases.set(m[2], m[1].split('.').slice(1))],
      [
        /^(default )?(\w+) :?= (.+)$/,
        (m) =>
          rules.push({
            path: `${pkg}.${m[2]}`,
            kind: m[1] ? 'default' : 'value',
            value: literal(m[3], fail),
            aliases,
          }),
      ],
      [
        /^(\w+)(?: contains (\w+|"[^"]*"))?( if)? \{(.*)$/,
        ([, name, term, hasIf, inline]) => {
          if ((term || hasIf) && !keywords) fail('rego_parse_error', 'unexpected identifier token');
          if (!hasIf && !v0) fail('rego_parse_error', '`if` keyword is required before rule body');
          open = { path: `${pkg}.${name}`, kind: term ? 'set' : 'boolean', term, body: [], aliases };
          if (inline.trim().endsWith('}')) {
            const single = inline.trim().slice(0, -1).trim();
            if (single) open.body.push(statement(single, fail, allowed));
            rules.push(open);
            open = undefined;
          }
        },
      ],
      [
        /^(\w+)\[(\w+|"[^"]*")\] \{$/,
        (m) => {
          if (!v0) fail('rego_parse_error', '`if` keyword is required before rule body');
          open = { path: `${pkg}.${m[1]}`, kind: 'set', term: m[2], body: [], aliases };
        },
      ],
    ];
    if (pkg === undefined && !/^(package|import) /.test(line)) fail('rego_parse_error', 'package expected');
    const known = forms.find(([form]) => form.test(line));
    if (known) {
      known[1](known[0].exec(line));
      return;
    }
    fail('standin_unsupported', `the stand-in does not read this line: ${line}`);
  });
  if (open) throw new RegoError('rego_parse_error', 'unexpected eof token: expected }', file, lines.length);
  return rules;
}

function literal(text, fail) {
  try {
    return JSON.parse(text);
  } catch {
    return fail('standin_unsupported', `the stand-in reads only JSON literals here: ${text}`);
  }
}

function statement(line, fail, allowed) {
  if (line === 'true' || line === 'false') return { op: 'const', value: line === 'true' };
  const args = (text) => text.split(',').map((a) => a.trim());
  const forms = [
    [
      /^(\w+) := sprintf\((".*"), \[(.*)\]\)$/,
      (m) => ({ op: 'sprintf', name: m[1], format: literal(m[2], fail), args: args(m[3]) }),
    ],
    [/^(\w+) := (".*")$/, (m) => ({ op: 'let', name: m[1], value: literal(m[2], fail) })],
    [/^(\w+) := ([\w.[\]"_]+)$/, (m) => ({ op: 'bind', name: m[1], ref: m[2] })],
    [/^([\w.[\]"_]+) (==|!=) (.+)$/, (m) => ({ op: m[2], ref: m[1], value: literal(m[3], fail) })],
    [/^print\((.*)\)$/, (m) => ({ op: 'print', args: args(m[1]) })],
    [
      /^([\w.]+)\(/,
      (m) =>
        allowed.has(m[1])
          ? fail('standin_unsupported', `the stand-in does not evaluate ${m[1]}`)
          : fail('rego_type_error', `undefined function ${m[1]}`),
    ],
  ];
  for (const [form, read] of forms) {
    const m = form.exec(line);
    if (m) return read(m);
  }
  return fail('standin_unsupported', `the stand-in does not read this statement: ${line}`);
}

// --- "evaluating" ------------------------------------------------------------------------------

/** Every value a reference reaches; `[_]` fans out over an array's elements or an object's values. */
function resolve(ref, env, rule, input) {
  const parts = ref.match(/[A-Za-z_]\w*|\[_\]|\["[^"]*"\]|\[\d+\]/g) ?? [];
  const [root, ...path] = parts;
  let values;
  if (root === 'input') values = [input];
  else if (rule.aliases.has(root)) values = [rule.aliases.get(root).reduce((v, k) => v?.[k], input)];
  else if (root in env) values = [env[root]];
  else return [];
  for (const part of path) {
    values = values.flatMap((v) => {
      if (v === null || typeof v !== 'object') return [];
      if (part === '[_]') return Object.values(v);
      const key = part.startsWith('["')
        ? JSON.parse(part.slice(1, -1))
        : part.startsWith('[')
          ? Number(part.slice(1, -1))
          : part;
      return key in v ? [v[key]] : [];
    });
  }
  return values.filter((v) => v !== undefined);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function valueOfArg(arg, env, rule, input) {
  if (arg.startsWith('"')) return JSON.parse(arg);
  return resolve(arg, env, rule, input)[0];
}

function run(rule, input) {
  let envs = [{}];
  for (const s of rule.body) {
    envs = envs.flatMap((env) => {
      switch (s.op) {
        case 'const':
          return s.value ? [env] : [];
        case 'let':
          return [{ ...env, [s.name]: s.value }];
        case 'bind':
          return resolve(s.ref, env, rule, input).map((v) => ({ ...env, [s.name]: v }));
        case 'sprintf': {
          const args = s.args.map((a) => valueOfArg(a, env, rule, input));
          if (args.some((a) => a === undefined)) return [];
          let i = 0;
          const text = s.format.replace(/%[vsd]/g, () => {
            const a = args[i++];
            return typeof a === 'string' ? a : JSON.stringify(a);
          });
          return [{ ...env, [s.name]: text }];
        }
        case '==':
          return resolve(s.ref, env, rule, input).some((v) => same(v, s.value)) ? [env] : [];
        case '!=':
          return resolve(s.ref, env, rule, input).some((v) => !same(v, s.value)) ? [env] : [];
        case 'print': {
          const shown = s.args.map((a) => {
            const v = valueOfArg(a, env, rule, input);
            return v === undefined ? '<undefined>' : typeof v === 'string' ? v : JSON.stringify(v);
          });
          process.stderr.write(`${shown.join(' ')}\n`);
          return [env];
        }
        default:
          throw new Error(`unknown statement ${s.op}`);
      }
    });
  }
  return envs;
}

function ruleValue(query, rules, input) {
  const path = query.replace(/^data\./, '');
  const matching = rules.filter((r) => r.path === path);
  if (matching.length === 0) {
    const below = rules.filter((r) => r.path.startsWith(`${path}.`));
    if (below.length === 0) return undefined;
    const object = {};
    for (const r of below) {
      const value = ruleValue(`data.${r.path}`, rules, input);
      if (value !== undefined) object[r.path.slice(path.length + 1)] = value;
    }
    return object;
  }
  if (matching.some((r) => r.kind === 'set')) {
    const values = matching.flatMap((r) =>
      run(r, input).map((env) => (r.term.startsWith('"') ? JSON.parse(r.term) : env[r.term])),
    );
    const unique = values.filter((v, i) => v !== undefined && values.findIndex((w) => same(v, w)) === i);
    return unique.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  for (const r of matching.filter((r) => r.kind === 'value')) return r.value;
  if (matching.some((r) => r.kind === 'boolean' && run(r, input).length > 0)) return true;
  return matching.find((r) => r.kind === 'default')?.value;
}

// --- the command line ---------------------------------------------------------------------------

const [command, ...rest] = process.argv.slice(2);
const flags = new Map();
const positional = [];
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i];
  if (['--v0-compatible', '--current'].includes(arg)) flags.set(arg, true);
  else if (arg === '--bundle' && command === 'check') flags.set(arg, true);
  else if (['--format', '--capabilities', '--bundle', '--input'].includes(arg)) flags.set(arg, rest[++i]);
  else if (arg.startsWith('--')) unsupported(`flag ${arg}`);
  else positional.push(arg);
}

if (command === 'version') {
  process.stdout.write(`Version: ${VERSION}\nBuild Commit: stand-in\nRego Version: v1\n`);
} else if (command === 'capabilities' && flags.get('--current')) {
  const v0 = flags.get('--v0-compatible') === true;
  const builtins = BUILTINS.map((name) => ({ name, decl: { type: 'function' } }));
  process.stdout.write(
    JSON.stringify({
      builtins,
      future_keywords: ['contains', 'if', 'in', 'every'],
      features: v0 ? [] : ['rego_v1'],
    }),
  );
} else if (command === 'check' && flags.get('--bundle') === true && positional.length === 1) {
  try {
    compile(positional[0]);
  } catch (err) {
    if (!(err instanceof RegoError)) throw err;
    process.stderr.write(JSON.stringify({ errors: [asJson(err)] }));
    process.exit(1);
  }
} else if (command === 'eval' && flags.get('--format') === 'json' && positional.length === 1) {
  evalQuery(positional[0]);
} else {
  unsupported(`opa ${[command, ...rest].join(' ')}`);
}
