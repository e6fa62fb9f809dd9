import { median, round } from './measure.js';

/**
 * Runs `rounds` rounds of the given measurements, alternating their order every round (so slow
 * drift of a shared machine lands on both sides), after which `ratio` is taken within each round
 * and the median of those is reported with the range.
 */
export async function interleave<T>(rounds: number, steps: Array<() => Promise<T>>): Promise<T[][]> {
  const results: T[][] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? steps.map((_, i) => i) : steps.map((_, i) => steps.length - 1 - i);
    const row: T[] = new Array(steps.length);
    for (const i of order) row[i] = await steps[i]!();
    results.push(row);
  }
  return results;
}

export interface RatioSummary {
  median: number;
  min: number;
  max: number;
  perRound: number[];
}

export function ratios(values: number[]): RatioSummary {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    median: round(median(finite), 3),
    min: round(Math.min(...finite), 3),
    max: round(Math.max(...finite), 3),
    perRound: values.map((v) => round(v, 3)),
  };
}

export const showRatio = (r: RatioSummary) => `${r.median}× (rounds: ${r.perRound.join(', ')})`;
