import { type ArchiveRejection, quotePath, rejection } from '../domain/archive-rejections.js';

/**
 * The names one tar member can take, read from its raw headers. Extractors disagree on which of
 * them wins (tar-stream prefers a pax `path` over a GNU long name, Python's tarfile lets the first
 * extension header win, Python prepends the ustar prefix field whatever the magic, old readers
 * ignore extensions), so the archive rules check every one of them.
 */
export interface MemberNames {
  /** What tar-stream (and GNU tar) use: the extended name when there is one, else the ustar name. */
  name: string;
  linkname: string;
  /** Other names some extractor may use for this member (each is checked like the name). */
  alternateNames: string[];
  /** Link targets some extractor may use instead (each is checked like the target). */
  alternateLinknames: string[];
  /** True when another reader would place the member at an alternate name (Python's prefix). */
  hasPlacementAlternates: boolean;
}

const BLOCK = 512;
/** Extension headers (pax records, GNU long names) above this size are refused. */
const MAX_EXTENSION_BYTES = 1024 * 1024;
const USTAR_MAGIC = Buffer.from('ustar\u000000', 'latin1');
const GNU_MAGIC = Buffer.from('ustar  \u0000', 'latin1');
/** pax keywords that change what is written where; a global header may set none of them. */
const PLACEMENT_KEYS = new Set(['path', 'linkpath', 'size']);
const REGULAR = new Set(['0', '\u0000', '7']);
/** Member typeflags tar-stream decodes; anything else (sparse, volume labels, …) is refused. */
const KNOWN_TYPES = new Set([...REGULAR, '1', '2', '3', '4', '5', '6']);

type Pending = { pax?: Map<string, string>; longName?: string; longLink?: string };

/**
 * Walks the raw tar stream (after gunzip) next to tar-stream and records, for every member, the
 * names the different extractors would give it. It refuses what makes extractors disagree on the
 * archive's structure: pax global headers that set `path`, `linkpath` or `size`; GNU sparse
 * extensions; repeated or conflicting extension headers for one member; data on members that are
 * not regular files (some readers skip it, others parse it as headers); entries hidden after the
 * end-of-archive marker; malformed numbers and pax records.
 *
 * write() is synchronous and returns the first problem; members are queued for take() in order.
 */
export class TarHeaderScanner {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes of file data (and padding) still to skip. */
  private skip = 0;
  /** An extension header whose payload is being collected. */
  private extension: { type: string; size: number } | undefined;
  private pending: Pending = {};
  private ended = false;
  private readonly members: MemberNames[] = [];

  write(data: Buffer): ArchiveRejection | undefined {
    let chunk = data;
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      chunk = chunk.subarray(n);
    }
    if (chunk.length === 0) return undefined;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (true) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, this.buffer.length);
        this.skip -= n;
        this.buffer = this.buffer.subarray(n);
        if (this.skip > 0) return undefined;
      }
      if (this.extension) {
        const padded = roundUp(this.extension.size);
        if (this.buffer.length < padded) return undefined;
        const payload = this.buffer.subarray(0, this.extension.size);
        this.buffer = this.buffer.subarray(padded);
        const problem = this.readExtension(this.extension.type, payload);
        this.extension = undefined;
        if (problem) return problem;
        continue;
      }
      if (this.buffer.length < BLOCK) return undefined;
      const block = this.buffer.subarray(0, BLOCK);
      this.buffer = this.buffer.subarray(BLOCK);
      const problem = this.readHeader(block);
      if (problem) return problem;
    }
  }

  /** The next member's names, in archive order. */
  take(): MemberNames | undefined {
    return this.members.shift();
  }

  private readHeader(block: Buffer): ArchiveRejection | undefined {
    // tar-stream's test for an empty block: every byte but the checksum field is zero.
    if (checksum(block) === 8 * 32) {
      this.ended = true;
      return undefined;
    }
    if (this.ended) {
      return ambiguous(
        'the archive has entries after its end-of-archive marker (GNU tar and Python stop there, other readers do not)',
      );
    }
    const stored = readOctal(block, 148, 8);
    if (stored === undefined || stored !== checksum(block))
      return corrupt('a header checksum does not match');
    const magic = block.subarray(257, 265);
    const isUstar = magic.subarray(0, 6).equals(USTAR_MAGIC.subarray(0, 6));
    if (!isUstar && !magic.equals(GNU_MAGIC)) return corrupt('a header has an unknown format');

    const type = String.fromCharCode(block[156]!);
    const size = readOctal(block, 124, 12);
    if (size === undefined) return corrupt('a header has an invalid size');
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > MAX_EXTENSION_BYTES) return corrupt('an extension header is too large');
      this.extension = { type, size };
      return undefined;
    }
    if (!KNOWN_TYPES.has(type)) {
      return rejection(
        'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY',
        `the archive contains an entry of an unsupported type (typeflag ${JSON.stringify(type)}): ${quotePath(text(block.subarray(0, 100)))}`,
      );
    }
    return this.readMember(block, type, size, isUstar);
  }

  private readMember(block: Buffer, type: string, headerSize: number, isUstar: boolean) {
    const pending = this.pending;
    this.pending = {};
    const field = (offset: number, length: number) => text(block.subarray(offset, offset + length));
    const name = field(0, 100);
    const prefix = field(345, 155);
    const ustarName = isUstar && prefix !== '' ? `${prefix}/${name}` : name;
    const ustarLinkname = field(157, 100);

    const paxPath = pending.pax?.get('path');
    const paxLinkpath = pending.pax?.get('linkpath');
    if (paxPath !== undefined && pending.longName !== undefined && paxPath !== pending.longName) {
      return ambiguous(
        `the archive gives one entry two different names (${quotePath(pending.longName)} and ${quotePath(paxPath)})`,
      );
    }
    if (paxLinkpath !== undefined && pending.longLink !== undefined && paxLinkpath !== pending.longLink) {
      return ambiguous(
        `the archive gives one link two different targets (${quotePath(pending.longLink)} and ${quotePath(paxLinkpath)})`,
      );
    }
    const extendedName = paxPath ?? pending.longName;
    const extendedLink = paxLinkpath ?? pending.longLink;
    const effectiveName = extendedName ?? ustarName;

    const paxSize = pending.pax?.get('size');
    const size = paxSize === undefined ? headerSize : Number(paxSize);
    // tar-stream reads an old-style "name/" regular file as a directory and skips no data for it.
    const isDirectory = type === '5' || (REGULAR.has(type) && type !== '7' && ustarName.endsWith('/'));
    if (size > 0 && (isDirectory || !REGULAR.has(type))) {
      return ambiguous(
        `the archive gives the non-file entry ${quotePath(effectiveName)} data (readers disagree on whether to skip it)`,
      );
    }
    this.skip = size > 0 ? roundUp(size) : 0;

    const alternateNames: string[] = [];
    let hasPlacementAlternates = false;
    if (extendedName !== undefined && ustarName !== extendedName) alternateNames.push(ustarName);
    // Python's tarfile prepends the prefix field whatever the magic says; tar-stream only for ustar.
    if (!isUstar && prefix !== '') {
      alternateNames.push(`${prefix}/${name}`);
      hasPlacementAlternates = extendedName === undefined;
    }
    const alternateLinknames =
      extendedLink !== undefined && ustarLinkname !== '' && ustarLinkname !== extendedLink
        ? [ustarLinkname]
        : [];
    this.members.push({
      name: effectiveName,
      linkname: extendedLink ?? ustarLinkname,
      alternateNames,
      alternateLinknames,
      hasPlacementAlternates,
    });
    return undefined;
  }

  private readExtension(type: string, payload: Buffer): ArchiveRejection | undefined {
    if (type === 'L' || type === 'K') {
      const key = type === 'L' ? 'longName' : 'longLink';
      if (this.pending[key] !== undefined)
        return ambiguous('the archive repeats a GNU long-name header for one entry');
      const value = text(payload);
      if (value === '') return ambiguous('the archive has an empty GNU long-name header');
      this.pending[key] = value;
      return undefined;
    }
    const records = parsePax(payload);
    if ('code' in records) return records;
    for (const key of records.keys()) {
      if (key.startsWith('GNU.sparse.')) {
        return rejection(
          'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY',
          'the archive contains a sparse file (GNU.sparse pax records); sparse files are not allowed',
        );
      }
    }
    if (type === 'g') {
      for (const key of PLACEMENT_KEYS) {
        if (records.has(key)) {
          return rejection(
            'STORAGE_ARCHIVE_GLOBAL_HEADER',
            `the archive has a pax global header that sets "${key}"${key === 'size' ? '' : ` (${quotePath(records.get(key)!)})`}; global headers may not set paths, link targets or sizes`,
          );
        }
      }
      return undefined;
    }
    if (this.pending.pax) return ambiguous('the archive repeats a pax extended header for one entry');
    for (const key of ['path', 'linkpath'] as const) {
      if (records.get(key) === '') return ambiguous(`the archive has a pax header with an empty "${key}"`);
    }
    const size = records.get('size');
    if (size !== undefined && !/^\d{1,15}$/.test(size)) return corrupt('a pax header has an invalid size');
    this.pending.pax = records;
    return undefined;
  }
}

/**
 * pax records (`"<length> <key>=<value>\n"`), strictly: a malformed record or a repeated key
 * that places the entry is refused, since readers recover from those in different ways.
 */
function parsePax(payload: Buffer): Map<string, string> | ArchiveRejection {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < payload.length) {
    const space = payload.indexOf(0x20, offset);
    const digits = space === -1 ? '' : payload.subarray(offset, space).toString('latin1');
    if (!/^[1-9]\d{0,6}$/.test(digits)) {
      // Some writers pad the payload with NULs after the last record.
      if (payload.subarray(offset).every((b) => b === 0)) break;
      return corrupt('a pax header record is malformed');
    }
    const length = Number(digits);
    const end = offset + length;
    if (end > payload.length || payload[end - 1] !== 0x0a) return corrupt('a pax header record is malformed');
    const record = payload.subarray(space + 1, end - 1);
    const equals = record.indexOf(0x3d);
    if (equals <= 0) return corrupt('a pax header record is malformed');
    const key = record.subarray(0, equals).toString('utf8');
    if (PLACEMENT_KEYS.has(key) && records.has(key)) {
      return ambiguous(`the archive has a pax header that repeats "${key}"`);
    }
    records.set(key, record.subarray(equals + 1).toString('utf8'));
    offset = end;
  }
  return records;
}

/** A NUL-terminated header field, decoded as tar-stream does (UTF-8). */
const text = (field: Buffer): string => {
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
};

/** A numeric header field: octal digits (leading spaces or zeros, trailing space or NUL) or base-256. */
function readOctal(block: Buffer, offset: number, length: number): number | undefined {
  const field = block.subarray(offset, offset + length);
  if (field[0] === 0x80) {
    let value = 0;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return Number.isSafeInteger(value) ? value : undefined;
  }
  const raw = field
    .toString('latin1')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL terminates numeric header fields
    .replace(/[ \u0000]+$/, '')
    .replace(/^ +/, '');
  if (raw === '') return 0;
  return /^[0-7]+$/.test(raw) ? Number.parseInt(raw, 8) : undefined;
}

/** The unsigned header checksum, with the checksum field counted as spaces. */
function checksum(block: Buffer): number {
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += block[i]!;
  for (let i = 156; i < BLOCK; i++) sum += block[i]!;
  return sum;
}

const roundUp = (n: number) => Math.ceil(n / BLOCK) * BLOCK;

const corrupt = (why: string) =>
  rejection('STORAGE_ARCHIVE_CORRUPT_TAR', `the tar archive is corrupt or truncated (${why})`);

const ambiguous = (message: string) => rejection('STORAGE_ARCHIVE_AMBIGUOUS_HEADER', message);
