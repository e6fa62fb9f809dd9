import { parseArgs } from 'node:util';
import { Db } from '@policyhub/db';
import { type DeadLetter, DeadLetterStore, type ReplayOutcome } from '@policyhub/events';

/**
 * `npm run dead-letters -- --service <name> <command>`: lists, shows, replays and discards one
 * service's dead letters (DATABASE_URL: that service's database; its schema is the service name
 * in snake_case). A replay only asks: the running service's own consumer applies the event on its
 * normal, idempotent path and removes the dead letter; this command waits for the outcome.
 * docs/adr/0022-event-retention-and-replay.md, deploy/README.md ("Dead letters").
 */

export const USAGE = `usage: npm run dead-letters -- --service <admin-orgs|policy-sets|runs|storage> <command>

commands:
  list [--consumer NAME] [--limit N]    dead letters, oldest first (default limit 100)
  show ID                               one dead letter with its decoded payload and headers
  replay ID... [--no-wait]              ask the service's consumer to apply them again; waits for the outcome
  replay --all [--consumer NAME]        every dead letter (of one consumer)
  discard ID                            remove one for good (its event is never applied)

options: --json (machine-readable output), --wait SECONDS (default 30)
environment: DATABASE_URL (the service's database; in Kubernetes, run it inside the service's pod)`;

const SERVICES = ['admin-orgs', 'policy-sets', 'runs', 'storage'];

export class UsageError extends Error {}

export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

/** Runs one command; resolves with the exit code (0 done, 1 not found or not applied, 2 usage). */
export async function runDeadLettersCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CommandIo,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv, env);
  } catch (err) {
    io.err(`dead-letters: ${(err as Error).message}`);
    io.err(USAGE);
    return 2;
  }
  const { command, ids, options } = parsed;
  const db = new Db({
    url: parsed.databaseUrl,
    schema: parsed.schema,
    max: 2,
    applicationName: 'dead-letters',
  });
  const store = new DeadLetterStore(db);
  const print = (value: unknown, text: () => string) => io.out(options.json ? JSON.stringify(value) : text());
  try {
    switch (command) {
      case 'list': {
        const rows = await store.list({ consumer: options.consumer, limit: options.limit });
        print(rows, () => (rows.length === 0 ? 'no dead letters' : rows.map(describe).join('\n')));
        return 0;
      }
      case 'show': {
        const row = await store.show(ids[0]!);
        if (!row) return notFound(io, ids[0]!);
        print(row, () => JSON.stringify(row, null, 2));
        return 0;
      }
      case 'discard': {
        const row = await store.discard(ids[0]!);
        if (!row) return notFound(io, ids[0]!);
        print({ discarded: row }, () => `discarded ${describe(row)}`);
        return 0;
      }
      case 'replay': {
        const attemptsBefore = options.all ? undefined : await store.attempts(ids);
        const requested = options.all
          ? await store.requestReplayAll(options.consumer)
          : await store.requestReplay(ids);
        const missing = ids.filter((id) => !requested.includes(id));
        for (const id of missing) io.err(`dead-letters: no dead letter ${id} in ${parsed.schema}`);
        if (requested.length === 0) {
          print({ replayed: [] }, () => 'nothing to replay');
          return missing.length > 0 ? 1 : 0;
        }
        if (!options.wait) {
          print({ requested }, () => `replay requested: ${requested.join(', ')}`);
          return missing.length > 0 ? 1 : 0;
        }
        const before = attemptsBefore ?? (await store.attempts(requested));
        const outcomes = await store.awaitReplays(requested, before, {
          timeoutMs: options.waitSeconds * 1000,
        });
        print({ replayed: outcomes }, () => outcomes.map(describeOutcome).join('\n'));
        return missing.length > 0 || outcomes.some((o) => o.outcome !== 'applied') ? 1 : 0;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    const missing = (err as { code?: string }).code === '42P01';
    io.err(
      missing
        ? `dead-letters: no ${parsed.schema}.dead_letters in this database: is DATABASE_URL the ${parsed.schema} service's database?`
        : `dead-letters: ${(err as Error).message}`,
    );
    return 1;
  } finally {
    await db.close();
  }
}

function parse(argv: string[], env: Record<string, string | undefined>) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      service: { type: 'string' },
      consumer: { type: 'string' },
      limit: { type: 'string' },
      all: { type: 'boolean', default: false },
      'no-wait': { type: 'boolean', default: false },
      wait: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (!values.service || !SERVICES.includes(values.service)) {
    throw new UsageError(`--service must be one of ${SERVICES.join(', ')}`);
  }
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('DATABASE_URL is required (the service database)');
  if (!command || !['list', 'show', 'replay', 'discard'].includes(command)) {
    throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
  }
  const ids = rest.map((raw) => {
    if (!/^\d{1,15}$/.test(raw)) throw new UsageError(`not a dead-letter id: ${raw}`);
    return Number(raw);
  });
  if ((command === 'show' || command === 'discard') && ids.length !== 1) {
    throw new UsageError(`${command} takes one dead-letter id`);
  }
  if (command === 'replay' && values.all === ids.length > 0) {
    throw new UsageError('replay takes dead-letter ids or --all');
  }
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  const waitSeconds = values.wait === undefined ? 30 : Number(values.wait);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw new UsageError('--wait must be seconds ≥ 0');
  return {
    command,
    ids,
    databaseUrl,
    schema: values.service.replace(/-/g, '_'),
    options: {
      consumer: values.consumer,
      limit,
      all: values.all,
      wait: !values['no-wait'],
      waitSeconds,
      json: values.json,
    },
  };
}

function notFound(io: CommandIo, id: number): number {
  io.err(`dead-letters: no dead letter ${id}`);
  return 1;
}

const describe = (d: DeadLetter): string =>
  `#${d.id}  ${d.consumer}  ${d.topic}  event ${d.eventId}  key ${d.key}  ${d.attempts} attempts  failed ${d.failedAt}` +
  `${d.replayRequestedAt ? '  (replay requested)' : ''}\n    ${d.error}`;

const describeOutcome = (o: ReplayOutcome): string =>
  o.outcome === 'applied'
    ? `#${o.id}  applied`
    : o.outcome === 'failed'
      ? `#${o.id}  failed again: ${o.error}`
      : `#${o.id}  not picked up yet (is the service running?); see: show ${o.id}`;
