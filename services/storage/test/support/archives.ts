import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface ArchiveEntry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  linkname?: string;
  /** Declared size when it must differ from the content (e.g. a header announcing a bomb). */
  size?: number;
}

/** The bytes of a tar archive with exactly these entries (names are written verbatim). */
export async function tarOf(entries: ArchiveEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const done = collect(pack);
  for (const e of entries) {
    const content = typeof e.content === 'string' ? Buffer.from(e.content) : (e.content ?? Buffer.alloc(0));
    await new Promise<void>((resolve, reject) => {
      const header = {
        name: e.name,
        type: e.type ?? 'file',
        linkname: e.linkname,
        size: e.type && e.type !== 'file' ? 0 : content.length,
        mode: e.type === 'directory' ? 0o755 : 0o644,
        // Fixed, so the same entries always make the same bytes.
        mtime: new Date(0),
      };
      pack.entry(header, content, (err) => (err ? reject(err) : resolve()));
    });
  }
  pack.finalize();
  return done;
}

export const gzipOf = (data: Buffer): Buffer => gzipSync(data);

export const tarGzOf = async (entries: ArchiveEntry[]): Promise<Buffer> => gzipOf(await tarOf(entries));

/** A small valid policy archive, as a client would pack a policy set directory. */
export const policyArchive = () =>
  tarGzOf([
    { name: 'sentinel.hcl', content: 'policy "allow-all" {\n  enforcement_level = "advisory"\n}\n' },
    { name: 'policies/', type: 'directory' },
    { name: 'policies/allow-all.sentinel', content: 'main = rule { true }\n' },
  ]);

function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
