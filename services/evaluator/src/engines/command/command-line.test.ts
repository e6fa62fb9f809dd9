import { describe, expect, it } from 'vitest';
import { parseCommand } from './command-line.js';

describe('parseCommand', () => {
  it('splits words, grouping quoted ones', () => {
    expect(parseCommand(`node  "/opt/my engines/run.js" --mode 'strict mode' ''`)).toEqual([
      'node',
      '/opt/my engines/run.js',
      '--mode',
      'strict mode',
      '',
    ]);
  });

  it('takes a JSON array as is', () => {
    expect(parseCommand('["/bin/engine", "--flag=a b"]')).toEqual(['/bin/engine', '--flag=a b']);
  });

  it('rejects what cannot be a command', () => {
    expect(() => parseCommand('  ')).toThrow(/no executable/);
    expect(() => parseCommand('node "unterminated')).toThrow(/unterminated quote/);
    expect(() => parseCommand('[]')).toThrow(/non-empty array/);
  });
});
