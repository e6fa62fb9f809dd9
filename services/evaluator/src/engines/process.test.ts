import { describe, expect, it } from 'vitest';
import { howItEnded, runProcess } from './process.js';

const node = (script: string) => [process.execPath, ['-e', script]] as const;
const limits = { timeoutMs: 20_000, maxOutputBytes: 1024 };

describe('running an engine process', () => {
  it('gives it stdin and its environment, and returns its output and exit status', async () => {
    const [file, args] = node(
      "process.stdout.write(require('node:fs').readFileSync(0, 'utf8') + process.env.ONLY); process.stderr.write('note'); process.exit(3)",
    );
    const run = await runProcess(file, args, { ...limits, stdin: 'in:', env: { ONLY: 'this' } });
    expect(run).toMatchObject({ exitCode: 3, stdout: 'in:this', stderr: 'note', timedOut: false });
    expect(howItEnded(run, 'the engine', limits)).toBe('the engine exited with status 3');
  });

  it('kills a process that outlives its time limit', async () => {
    const [file, args] = node('setInterval(() => {}, 1000)');
    const run = await runProcess(file, args, { ...limits, timeoutMs: 300 });
    expect(run).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(howItEnded(run, 'OPA', { ...limits, timeoutMs: 300 })).toBe('OPA did not finish within 300 ms');
  });

  it('kills a process whose output passes the limit, keeping none of the excess', async () => {
    const [file, args] = node("process.stdout.write('x'.repeat(1024 * 1024)); setInterval(() => {}, 1000)");
    const run = await runProcess(file, args, limits);
    expect(run.outputExceeded).toBe(true);
    expect(run.stdout.length).toBeLessThanOrEqual(1024);
    expect(howItEnded(run, 'OPA', limits)).toBe('OPA printed more than 1024 bytes');
  });

  it('kills a process when its caller gives up (a lost lease)', async () => {
    const [file, args] = node('setInterval(() => {}, 1000)');
    const stop = new AbortController();
    const running = runProcess(file, args, { ...limits, signal: stop.signal });
    stop.abort();
    expect(await running).toMatchObject({ aborted: true, timedOut: false });
  });

  it('says which executable could not be started', async () => {
    await expect(runProcess('/nonexistent/opa', [], limits)).rejects.toThrow(
      /^could not start \/nonexistent\/opa: /,
    );
  });
});
