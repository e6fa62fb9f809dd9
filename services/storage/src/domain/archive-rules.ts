import { type ArchiveRejection, quotePath, rejection } from './archive-rejections.js';
import { formatBytes, type UploadLimits } from './upload-limits.js';

/** The parts of a tar header the rules look at (tar-stream's header shape). */
export interface EntryHeader {
  name: string;
  type?: string | null | undefined;
  size?: number | undefined;
  linkname?: string | null | undefined;
  /** Names another extractor may give the entry (a ustar name beside a long name, …). */
  alternateNames?: readonly string[] | undefined;
  /** Link targets another extractor may use. */
  alternateLinknames?: readonly string[] | undefined;
  /** True when an extractor may place the entry at an alternate name (not only read it). */
  hasPlacementAlternates?: boolean | undefined;
}

export type AdmittedEntry =
  | { kind: 'file'; path: string; size: number }
  | { kind: 'directory'; path: string }
  | { kind: 'link'; path: string };

const MAX_PATH_LENGTH = 1024;
/** Like the kernel's ELOOP bound: a longer chain of symbolic links is refused. */
const MAX_LINK_HOPS = 40;
const SPECIAL_TYPES = new Set(['character-device', 'block-device', 'fifo']);

interface Link {
  path: string;
  target: string;
  kind: 'symlink' | 'hardlink';
}

/**
 * What an uploaded archive may contain. Each entry is checked as it streams past (entry count,
 * expanded size against decompression bombs, relative paths without `..` under every name an
 * extractor may give it, no devices or FIFOs); links are checked once the whole archive has been
 * seen, because a later symbolic link can change where an earlier one points: every link target is
 * resolved through the archive's own symbolic links and must never leave the archive root, and no
 * entry may sit beneath a symbolic link. Paths are compared case-insensitively (and after Unicode
 * compatibility normalisation), as a case-insensitive file system would resolve them.
 * Nothing is stored before finish() has passed.
 */
export class ArchiveRules {
  private entries = 0;
  private expandedBytes = 0;
  private files = 0;
  private readonly paths: string[] = [];
  private readonly links: Link[] = [];

  constructor(private readonly limits: Pick<UploadLimits, 'maxEntries' | 'maxExpandedBytes'>) {}

  admit(header: EntryHeader): AdmittedEntry | ArchiveRejection {
    this.entries++;
    if (this.entries > this.limits.maxEntries) {
      return rejection(
        'STORAGE_ARCHIVE_TOO_MANY_ENTRIES',
        `the archive has more than ${this.limits.maxEntries} entries`,
      );
    }
    const path = normalisePath(header.name);
    if (typeof path !== 'string') return path;
    const placements = [path];
    for (const alternate of header.alternateNames ?? []) {
      const other = normalisePath(alternate);
      if (typeof other !== 'string') return other;
      if (header.hasPlacementAlternates && other !== path) placements.push(other);
    }
    for (const placed of placements) if (placed !== '') this.paths.push(placed);

    // tar-stream reports typeflags it does not know (sparse files, vendor extensions) as null.
    const type = header.type === undefined ? 'file' : (header.type ?? 'unknown');
    switch (type) {
      case 'file':
      case 'contiguous-file': {
        if (path === '')
          return rejection('STORAGE_ARCHIVE_INVALID_PATH', 'the archive contains a file without a name');
        const size = header.size ?? 0;
        this.expandedBytes += size;
        if (this.expandedBytes > this.limits.maxExpandedBytes) {
          return rejection(
            'STORAGE_ARCHIVE_EXPANDED_TOO_LARGE',
            `the archive expands to more than ${formatBytes(this.limits.maxExpandedBytes)}`,
          );
        }
        this.files++;
        return { kind: 'file', path, size };
      }
      case 'directory':
        return { kind: 'directory', path };
      case 'symlink':
      case 'link': {
        const target = header.linkname ?? '';
        if (path === '' || target === '') {
          return rejection(
            'STORAGE_ARCHIVE_INVALID_PATH',
            `the archive contains a link without a name or target: ${quotePath(path)}`,
          );
        }
        if (isAbsolute(target)) return linkEscape(path, target);
        for (const alternate of header.alternateLinknames ?? []) {
          if (isAbsolute(alternate)) return linkEscape(path, alternate);
        }
        for (const placed of placements) {
          if (placed === '') continue;
          this.links.push({ path: placed, target, kind: type === 'symlink' ? 'symlink' : 'hardlink' });
        }
        return { kind: 'link', path };
      }
      default:
        if (SPECIAL_TYPES.has(type)) {
          return rejection(
            'STORAGE_ARCHIVE_SPECIAL_FILE',
            `the archive contains a ${type} entry ${quotePath(path)}; devices and FIFOs are not allowed`,
          );
        }
        return rejection(
          'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY',
          `the archive contains an entry of an unsupported type (${type}): ${quotePath(path)}`,
        );
    }
  }

  /** The checks that need the whole archive: at least one file, and links that stay inside. */
  finish(): ArchiveRejection | undefined {
    if (this.files === 0) return rejection('STORAGE_ARCHIVE_EMPTY', 'the archive contains no files');
    if (this.links.length === 0) return undefined;

    const symlinks = new Map<string, Link>();
    for (const link of this.links) {
      if (link.kind !== 'symlink') continue;
      const key = foldPath(link.path);
      const same = symlinks.get(key);
      if (same && same.target !== link.target) {
        return rejection(
          'STORAGE_ARCHIVE_LINK_ESCAPE',
          `the archive has two symbolic links at the same place on a case-insensitive file system: ${quotePath(same.path)} -> ${quotePath(same.target)} and ${quotePath(link.path)} -> ${quotePath(link.target)}`,
        );
      }
      symlinks.set(key, link);
    }
    for (const path of this.paths) {
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const above = parts.slice(0, i).join('/');
        if (symlinks.has(foldPath(above))) {
          return rejection(
            'STORAGE_ARCHIVE_LINK_ESCAPE',
            `the archive places ${quotePath(path)} beneath the symbolic link ${quotePath(above)}`,
          );
        }
      }
    }
    for (const link of this.links) {
      // A symbolic link is relative to its own directory; a hard link names an archive path.
      const base = link.kind === 'symlink' ? parentOf(link.path) : [];
      if (resolveInside(base, link.target, symlinks, 0) === undefined)
        return linkEscape(link.path, link.target);
    }
    return undefined;
  }
}

/**
 * Resolves `target` from the directory `base` the way an extractor's file system would, following
 * the archive's symbolic links; undefined when any step climbs above the archive root (or the chain
 * is too long or absolute).
 */
function resolveInside(
  base: string[],
  target: string,
  symlinks: Map<string, Link>,
  hops: number,
): string[] | undefined {
  if (hops > MAX_LINK_HOPS || isAbsolute(target)) return undefined;
  let stack = [...base];
  for (const part of target.split(/[\\/]/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return undefined;
      stack.pop();
      continue;
    }
    stack.push(part);
    const link = symlinks.get(foldPath(stack.join('/')));
    if (link) {
      const resolved = resolveInside(parentOf(link.path), link.target, symlinks, hops + 1);
      if (!resolved) return undefined;
      stack = resolved;
    }
  }
  return stack;
}

/**
 * An entry name as a clean relative path (`./a//b` → `a/b`, the root → ''), or why it is refused.
 * Backslashes count as separators so a name cannot become a traversal on a Windows extractor.
 */
export function normalisePath(name: string): string | ArchiveRejection {
  if (name.length > MAX_PATH_LENGTH) {
    return rejection(
      'STORAGE_ARCHIVE_INVALID_PATH',
      `the archive contains a path longer than ${MAX_PATH_LENGTH} characters`,
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f]/.test(name)) {
    return rejection(
      'STORAGE_ARCHIVE_INVALID_PATH',
      `the archive contains a path with control characters: ${quotePath(name)}`,
    );
  }
  if (isAbsolute(name)) {
    return rejection(
      'STORAGE_ARCHIVE_ABSOLUTE_PATH',
      `the archive contains an absolute path: ${quotePath(name)}`,
    );
  }
  const segments = name.split(/[\\/]/);
  if (segments.includes('..')) {
    return rejection(
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
      `the archive contains a path with "..": ${quotePath(name)}`,
    );
  }
  return segments.filter((s) => s !== '' && s !== '.').join('/');
}

/**
 * The key under which a case-insensitive (and normalisation-insensitive) file system finds a path:
 * two names with the same key are the same file there. Folding more than a real file system does
 * only makes the link checks stricter.
 */
const foldPath = (path: string): string => path.normalize('NFKC').toUpperCase().toLowerCase();

const linkEscape = (path: string, target: string) =>
  rejection(
    'STORAGE_ARCHIVE_LINK_ESCAPE',
    `the archive contains a link that resolves outside the archive (or loops): ${quotePath(path)} -> ${quotePath(target)}`,
  );

const parentOf = (path: string): string[] => path.split('/').slice(0, -1);

const isAbsolute = (p: string): boolean => p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p);
