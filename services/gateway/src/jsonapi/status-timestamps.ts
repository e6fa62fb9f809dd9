import { fromTimestamp, type TimestampOutput } from '@policyhub/contracts';

/**
 * `status-timestamps` as clients read them (`policy-checked-at` → ISO time, oldest first), from
 * a service's map of status word → Timestamp: services keep no wire keys (ADR 0035). `extra`
 * entries that are not statuses (a configuration version's `finished-at`) are listed after the
 * statuses they share a time with; unset ones are left out.
 */
export function serializeStatusTimestamps(
  timestamps: Record<string, TimestampOutput>,
  extra: Record<string, TimestampOutput | null> = {},
): Record<string, string> {
  const entries: Array<[string, Date]> = [];
  for (const [status, at] of Object.entries(timestamps)) {
    entries.push([`${status.replace(/_/g, '-')}-at`, fromTimestamp(at)!]);
  }
  for (const [key, at] of Object.entries(extra)) {
    const time = fromTimestamp(at);
    if (time) entries.push([key, time]);
  }
  entries.sort(([, a], [, b]) => a.getTime() - b.getTime());
  return Object.fromEntries(entries.map(([key, at]) => [key, at.toISOString()]));
}
