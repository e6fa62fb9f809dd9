import { runDeadLettersCommand } from './dead-letters-command.js';

/** Entry point of `npm run dead-letters` (and `node packages/service-kit/dist/dead-letters-main.js` in an image). */
const code = await runDeadLettersCommand(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
process.exit(code);
