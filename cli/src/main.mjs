import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Api, ApiError } from './api.mjs';
import { check, UsageError } from './check.mjs';
import { forTerminal, jsonForTerminal } from './terminal.mjs';

const HELP = `policyhub: the PolicyHub command-line gate for CI

Usage:
  policyhub check --workspace ORG/WS --plan plan.json [options]

  Creates a run on the workspace, uploads the plan (the output of \`terraform show -json\`),
  waits for the policy check's verdict, prints each policy's outcome and the check output.

Options:
  --workspace ORG/WS   the workspace (or its id, ws-…)                          (required)
  --plan FILE          the plan JSON; "-" reads standard input                    (required)
  --message TEXT       the run's message (default: "policyhub check")
  --plan-only          create a plan-only run (the default): a soft failure is final
  --no-plan-only       create a regular run: a soft failure waits for an override
  --wait-override      on a soft failure, wait for an override (implies --no-plan-only)
  --timeout SECONDS    give up waiting after this long (default 600)
  --keep-run           on a timeout or an interruption, leave the run as it is
                       (by default it is discarded, so no run waits forever)
  --json               print a machine-readable result on stdout (progress stays on stderr)
  --address URL        the server (else POLICYHUB_ADDRESS, TFE_ADDRESS)
  --token TOKEN        an API token (else POLICYHUB_TOKEN, TFE_TOKEN)
  -h, --help           this help
  --version            the version

Exit status:
  0  passed, overridden, or no policy set applies
  2  soft-failed (awaiting an override, or final on a plan-only run)
  1  hard-failed, errored, canceled or discarded, timed out; usage or connection errors
  130  interrupted (SIGINT or SIGTERM)
`;

/**
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @param {{
 *   stdout?: (text: string) => void, stderr?: (text: string) => void, stdin?: NodeJS.ReadableStream,
 *   signal?: AbortSignal,
 * }} [streams] `signal`: aborts the check (the command line's SIGINT and SIGTERM)
 * @returns {Promise<number>}
 */
export async function main(argv, env, streams = {}) {
  const rawStdout = streams.stdout ?? ((/** @type {string} */ t) => process.stdout.write(t));
  const rawStderr = streams.stderr ?? ((/** @type {string} */ t) => process.stderr.write(t));
  // Server-provided text (policy output, names, error details) never reaches the terminal with
  // control sequences in it: --json output is escaped, everything else stripped (terminal.mjs).
  let jsonOutput = false;
  const stdout = (/** @type {string} */ t) => rawStdout(jsonOutput ? jsonForTerminal(t) : forTerminal(t));
  const stderr = (/** @type {string} */ t) => rawStderr(forTerminal(t));
  const fail = (/** @type {string} */ message) => {
    stderr(`policyhub: ${message}\n`);
    return 1;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        plan: { type: 'string' },
        message: { type: 'string' },
        'plan-only': { type: 'boolean' },
        'no-plan-only': { type: 'boolean' },
        'wait-override': { type: 'boolean' },
        timeout: { type: 'string' },
        'keep-run': { type: 'boolean' },
        json: { type: 'boolean' },
        address: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (err) {
    return fail(`${/** @type {Error} */ (err).message}\nRun "policyhub --help" for usage.`);
  }
  const { values, positionals } = parsed;
  jsonOutput = values.json ?? false;
  if (values.version) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    stdout(`${pkg.version}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    (values.help ? stdout : stderr)(HELP);
    return values.help ? 0 : 1;
  }
  if (positionals[0] !== 'check' || positionals.length > 1) {
    return fail(
      `unknown command ${JSON.stringify(positionals.join(' '))}; the command is "check" (see --help)`,
    );
  }
  const address = values.address || env.POLICYHUB_ADDRESS || env.TFE_ADDRESS;
  const token = values.token || env.POLICYHUB_TOKEN || env.TFE_TOKEN;
  if (!values.workspace) return fail('--workspace ORG/WS is required');
  if (!values.plan) return fail('--plan FILE is required (the output of `terraform show -json`)');
  if (!address) return fail('no server address: pass --address or set POLICYHUB_ADDRESS (or TFE_ADDRESS)');
  if (!token) return fail('no API token: pass --token or set POLICYHUB_TOKEN (or TFE_TOKEN)');
  if (values['plan-only'] && (values['no-plan-only'] || values['wait-override'])) {
    return fail(
      '--plan-only cannot be combined with --no-plan-only or --wait-override (a plan-only run cannot be overridden)',
    );
  }
  const timeoutSeconds = values.timeout === undefined ? 600 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    return fail('--timeout must be a positive number of seconds');

  try {
    return await check(
      new Api(address, token),
      {
        workspace: values.workspace,
        plan: values.plan,
        message: values.message ?? 'policyhub check',
        planOnly: !(values['no-plan-only'] || values['wait-override']),
        waitOverride: values['wait-override'] ?? false,
        timeoutSeconds,
        json: values.json ?? false,
        keepRun: values['keep-run'] ?? false,
      },
      {
        progress: (line) => stderr(`policyhub: ${line}\n`),
        stdout,
        stdin: streams.stdin ?? process.stdin,
        signal: streams.signal,
      },
    );
  } catch (err) {
    if (err instanceof ApiError || err instanceof UsageError) return fail(err.message);
    return fail(`unexpected failure: ${/** @type {Error} */ (err).stack ?? err}`);
  }
}
