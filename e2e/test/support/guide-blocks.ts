import { readFileSync } from 'node:fs';

/** One fenced ```sh block of an API guide. */
export interface GuideBlock {
  guide: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
  code: string;
  /** `status=409,404`: the exact statuses of the block's HTTP calls, in order; else each is 2xx. */
  statuses: number[] | undefined;
}

/**
 * The ```sh blocks of a Markdown guide, in order (other fences — json, text, plain — are output
 * samples and are not run). The info string may carry `status=<code>,…` after `sh`.
 */
export function shellBlocks(path: string, guide: string): GuideBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: GuideBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```sh(?:\s+(.*))?$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i += 1) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${guide}:${start + 1}: unterminated code block`);
    const status = /(?:^|\s)status=([\d,]+)/.exec(open[1] ?? '');
    blocks.push({
      guide,
      line: start + 1,
      code: body.join('\n'),
      statuses: status ? status[1]!.split(',').map(Number) : undefined,
    });
  }
  return blocks;
}

/** `::status <block> <http code>` lines written by the curl wrapper; block → codes in call order. */
export function statusesByBlock(log: string): Map<number, number[]> {
  const byBlock = new Map<number, number[]>();
  for (const line of log.split('\n')) {
    const match = /^::status (\d+) (\d{3})$/.exec(line.trim());
    if (!match) continue;
    const block = Number(match[1]);
    byBlock.set(block, [...(byBlock.get(block) ?? []), Number(match[2])]);
  }
  return byBlock;
}
