/**
 * Tar archives written byte for byte, for tests of hostile archives that ordinary packers refuse
 * to produce (pax global headers that set paths, GNU long names beside pax paths, data on
 * directories, entries after the end-of-archive marker, …).
 */

const BLOCK = 512;

export interface RawHeader {
  name: string;
  /** The typeflag character: '0' file, '1' hard link, '2' symlink, '5' directory, 'x', 'g', 'L', 'K', … */
  type?: string;
  size?: number;
  linkname?: string;
  /** The ustar prefix field (bytes 345–499). */
  prefix?: string;
  /** POSIX `ustar\0` + `00` (default) or GNU `ustar ` + ` \0`. */
  format?: 'ustar' | 'gnu';
}

/** One 512-byte header block with a correct checksum. */
export function rawHeader(h: RawHeader): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (offset: number, length: number, value: string) => {
    const bytes = Buffer.from(value, 'utf8');
    if (bytes.length > length) throw new Error(`header field too long: ${value}`);
    bytes.copy(block, offset);
  };
  const octal = (offset: number, length: number, value: number) =>
    put(offset, length, `${value.toString(8).padStart(length - 1, '0')}\u0000`);
  put(0, 100, h.name);
  octal(100, 8, h.type === '5' ? 0o755 : 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, h.size ?? 0);
  octal(136, 12, 0);
  block.write(h.type ?? '0', 156, 'latin1');
  if (h.linkname) put(157, 100, h.linkname);
  if (h.format === 'gnu') block.write('ustar  \u0000', 257, 'latin1');
  else block.write('ustar\u000000', 257, 'latin1');
  if (h.prefix) put(345, 155, h.prefix);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(148, 8, `${sum.toString(8).padStart(6, '0')}\u0000 `);
  return block;
}

/** Data padded to whole blocks. */
export const padded = (data: Buffer): Buffer =>
  Buffer.concat([data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK)]);

/** A regular file member: header + data. */
export function rawFile(name: string, content: string | Buffer, extra: Partial<RawHeader> = {}): Buffer {
  const data = typeof content === 'string' ? Buffer.from(content) : content;
  return Buffer.concat([rawHeader({ name, size: data.length, ...extra }), padded(data)]);
}

/** pax records in the `"<length> <key>=<value>\n"` form. */
export function paxRecords(records: Array<[string, string]>): Buffer {
  return Buffer.concat(
    records.map(([key, value]) => {
      const body = ` ${key}=${value}\n`;
      let length = Buffer.byteLength(body) + 1;
      while (String(length).length + Buffer.byteLength(body) !== length) length++;
      return Buffer.from(`${length}${body}`);
    }),
  );
}

/** A pax extended header ('x', for the next member) or global header ('g', for all that follow). */
export function rawPax(records: Array<[string, string]>, kind: 'x' | 'g' = 'x'): Buffer {
  const payload = paxRecords(records);
  const name = kind === 'g' ? 'pax_global_header' : 'PaxHeaders/entry';
  return Buffer.concat([rawHeader({ name, type: kind, size: payload.length }), padded(payload)]);
}

/** A GNU long name ('L') or long link target ('K') for the next member. */
export function rawGnuLong(kind: 'L' | 'K', value: string): Buffer {
  const payload = Buffer.from(`${value}\u0000`);
  return Buffer.concat([
    rawHeader({ name: '././@LongLink', type: kind, size: payload.length, format: 'gnu' }),
    padded(payload),
  ]);
}

/** The end-of-archive marker: two zero blocks. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

/** Members followed by the end-of-archive marker. */
export const rawTar = (...members: Buffer[]): Buffer => Buffer.concat([...members, END_OF_ARCHIVE]);
