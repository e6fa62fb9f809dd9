import { createHash } from 'node:crypto';
import { createGunzip, type Gunzip } from 'node:zlib';
import tar from 'tar-stream';
import { type ArchiveRejection, quotePath, rejection } from '../domain/archive-rejections.js';
import {
  type ArchiveDeclaration,
  type ArchiveLayout,
  configPaths,
  MAX_CONFIG_BYTES,
  type ParseHcl,
  readLayout,
} from '../domain/archive-layouts.js';
import { ArchiveRules } from '../domain/archive-rules.js';
import { TarHeaderScanner } from '../domain/tar-header-scanner.js';
import { formatBytes, type UploadLimits } from '../domain/upload-limits.js';
import type { ManifestEntry } from '../domain/upload-outcomes.js';
import { parseHcl as defaultParseHcl } from './parse-hcl.js';

export type Inspection =
  | {
      ok: true;
      sizeBytes: number;
      files: ManifestEntry[];
      /** What the layout's configuration file declares; undefined when no layout was required. */
      declaration: ArchiveDeclaration | undefined;
    }
  | { ok: false; sizeBytes: number; rejection: ArchiveRejection };

const GZIP_MAGIC = [0x1f, 0x8b];

/** The layout the archive must have (none by default), and the parser for its configuration. */
export interface LayoutRequirement {
  layout: ArchiveLayout;
  /** Normalised archive path of the directory holding the layout ('' = the root). */
  root: string;
  parseHcl?: ParseHcl;
}

/**
 * Validates a .tar.gz while its bytes stream in, without buffering it: counts the compressed
 * bytes, gunzips and parses the tar on the fly, applies ArchiveRules to each entry, and
 * hashes each file for the manifest. The first problem wins; after it the inspector only counts
 * bytes (so the caller can drain the request) until the compressed limit is passed.
 *
 * write() resolves when the chunk has been taken in (backpressure); finish() when the verdict
 * is known.
 */
export class ArchiveInspector {
  private sizeBytes = 0;
  private readonly head: number[] = [];
  private readonly rules: ArchiveRules;
  private readonly files: ManifestEntry[] = [];
  private readonly gunzip: Gunzip;
  private readonly extract: tar.Extract;
  /** Reads the raw headers beside tar-stream: every name each extractor would use. */
  private readonly scanner = new TarHeaderScanner();
  /** Regular files and links, for the layout's source checks. */
  private readonly entryPaths = new Set<string>();
  /** The layout's configuration files, captured while they stream past. */
  private readonly configs = new Map<string, string>();
  private readonly configPaths: ReadonlySet<string>;
  private failure: ArchiveRejection | undefined;
  /** Resolves when the tar stream has been read to its end, or at the first failure. */
  private readonly settled: Promise<void>;
  private settle!: () => void;

  constructor(
    private readonly limits: Pick<UploadLimits, 'maxBytes' | 'maxEntries' | 'maxExpandedBytes'>,
    private readonly layout: LayoutRequirement = { layout: '', root: '' },
  ) {
    this.rules = new ArchiveRules(limits);
    this.configPaths = new Set(configPaths(layout.layout, layout.root));
    this.settled = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.gunzip = createGunzip();
    this.extract = tar.extract();
    this.wireDecompression();
    this.wireEntries();
  }

  /** True once the compressed limit has been passed: stop reading, the verdict is final. */
  get isOverLimit(): boolean {
    return this.sizeBytes > this.limits.maxBytes;
  }

  get rejected(): boolean {
    return this.failure !== undefined;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.isOverLimit) return;
    this.sizeBytes += chunk.length;
    if (this.isOverLimit) {
      this.fail(
        rejection(
          'STORAGE_ARCHIVE_TOO_LARGE',
          `the archive is larger than ${formatBytes(this.limits.maxBytes)}`,
        ),
      );
      return;
    }
    if (this.failure) return;
    if (!this.checkMagic(chunk)) return;
    if (!this.gunzip.write(chunk)) await this.drained();
  }

  async finish(): Promise<Inspection> {
    if (!this.failure) {
      if (this.head.length < GZIP_MAGIC.length) this.fail(notGzip());
      else this.gunzip.end();
    }
    await this.settled;
    const problem = this.failure ?? this.rules.finish();
    const verdict = problem
      ? { ok: false as const, rejection: problem }
      : await readLayout(
          { ...this.layout, configs: this.configs, entries: this.entryPaths },
          this.layout.parseHcl ?? defaultParseHcl,
        );
    if (!verdict.ok) {
      this.failure ??= verdict.rejection;
      return { ok: false, sizeBytes: this.sizeBytes, rejection: verdict.rejection };
    }
    return { ok: true, sizeBytes: this.sizeBytes, files: this.files, declaration: verdict.declaration };
  }

  /** Stops everything (the upload was cancelled); finish() must not be called afterwards. */
  abort(): void {
    this.stop();
  }

  private wireDecompression(): void {
    let expanded = 0;
    // The tar's own framing (headers, padding) is not in the file sizes ArchiveRules adds up;
    // bound the raw decompressed stream too, with room for that framing.
    const maxExpandedStream = this.limits.maxExpandedBytes + (this.limits.maxEntries + 2) * 1024;
    this.gunzip.on('data', (data: Buffer) => {
      if (this.failure) return;
      expanded += data.length;
      if (expanded > maxExpandedStream) {
        this.fail(
          rejection(
            'STORAGE_ARCHIVE_EXPANDED_TOO_LARGE',
            `the archive expands to more than ${formatBytes(this.limits.maxExpandedBytes)}`,
          ),
        );
        return;
      }
      const problem = this.scanner.write(data);
      if (problem) {
        this.fail(problem);
        return;
      }
      if (!this.extract.write(data)) {
        this.gunzip.pause();
        this.extract.once('drain', () => this.gunzip.resume());
      }
    });
    this.gunzip.on('end', () => this.extract.end());
    this.gunzip.on('error', (err: NodeJS.ErrnoException) => {
      const truncated = err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message);
      this.fail(
        rejection(
          'STORAGE_ARCHIVE_CORRUPT_GZIP',
          truncated ? 'the gzip data is truncated' : `the gzip data is corrupt (${err.message})`,
        ),
      );
    });
  }

  private wireEntries(): void {
    this.extract.on(
      'entry',
      (header: tar.Headers, stream: NodeJS.ReadableStream, next: (err?: unknown) => void) => {
        // A broken archive destroys the entry's stream too; the extractor reports that error.
        stream.on('error', () => {});
        if (this.failure) return;
        const names = this.scanner.take();
        if (!names || names.name !== header.name || names.linkname !== (header.linkname ?? '')) {
          this.fail(
            rejection(
              'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
              `the archive's headers can be read in more than one way (at ${quotePath(header.name)})`,
            ),
          );
          return;
        }
        const admitted = this.rules.admit({ ...header, ...names, name: header.name });
        if ('code' in admitted) {
          this.fail(admitted);
          return;
        }
        if (admitted.kind !== 'directory') this.entryPaths.add(admitted.path);
        if (admitted.kind !== 'file') {
          stream.on('end', () => next());
          stream.resume();
          return;
        }
        const fileHash = createHash('sha256');
        const config = this.configPaths.has(admitted.path)
          ? this.captureConfig(admitted.path, admitted.size)
          : undefined;
        stream.on('data', (d: Buffer) => {
          fileHash.update(d);
          config?.push(d);
        });
        stream.on('end', () => {
          if (config) this.configs.set(admitted.path, Buffer.concat(config).toString('utf8'));
          this.files.push({ path: admitted.path, sizeBytes: admitted.size, sha256: fileHash.digest('hex') });
          next();
        });
      },
    );
    this.extract.on('finish', () => this.settle());
    this.extract.on('error', (err: Error) => {
      this.fail(
        rejection('STORAGE_ARCHIVE_CORRUPT_TAR', `the tar archive is corrupt or truncated (${err.message})`),
      );
    });
  }

  /** Collects a layout configuration file's bytes; a file too large to be one fails the archive. */
  private captureConfig(path: string, size: number): Buffer[] | undefined {
    if (size <= MAX_CONFIG_BYTES) return [];
    this.fail(
      rejection('STORAGE_ARCHIVE_CONFIG_INVALID', `${path} is larger than ${formatBytes(MAX_CONFIG_BYTES)}`),
    );
    return undefined;
  }

  /** Checks the first two bytes for the gzip signature; false (and a rejection) when absent. */
  private checkMagic(chunk: Buffer): boolean {
    for (let i = 0; i < chunk.length && this.head.length < GZIP_MAGIC.length; i++) {
      this.head.push(chunk[i]!);
      if (this.head[this.head.length - 1] !== GZIP_MAGIC[this.head.length - 1]) {
        this.fail(notGzip());
        return false;
      }
    }
    return true;
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.gunzip.off('drain', done);
        this.gunzip.off('close', done);
        resolve();
      };
      this.gunzip.once('drain', done);
      this.gunzip.once('close', done);
    });
  }

  private fail(problem: ArchiveRejection): void {
    if (this.failure) return;
    this.failure = problem;
    this.stop();
  }

  private stop(): void {
    this.gunzip.destroy();
    this.extract.destroy();
    this.settle();
  }
}

const notGzip = () =>
  rejection('STORAGE_ARCHIVE_NOT_GZIP', 'the upload is not a gzip-compressed tar archive (.tar.gz)');
