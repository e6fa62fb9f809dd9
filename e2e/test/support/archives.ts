import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface ArchiveEntry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  linkname?: string;
}

/** A tar archive with exactly these entries, names written verbatim (hostile ones included). */
export async function tarOf(entries: ArchiveEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pack.on('data', (c: Buffer) => chunks.push(c));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
  });
  for (const e of entries) {
    const content = typeof e.content === 'string' ? Buffer.from(e.content) : (e.content ?? Buffer.alloc(0));
    await new Promise<void>((resolve, reject) =>
      pack.entry(
        {
          name: e.name,
          type: e.type ?? 'file',
          linkname: e.linkname,
          size: e.type && e.type !== 'file' ? 0 : content.length,
          // Fixed, so the same entries always make the same bytes.
          mtime: new Date(0),
        },
        content,
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  }
  pack.finalize();
  return done;
}

export const tarGzOf = async (entries: ArchiveEntry[]): Promise<Buffer> => gzipSync(await tarOf(entries));

/** The `sentinel.hcl` of a kind_a set whose policies are `policies/<name>.sentinel`. */
export const sentinelHcl = (...names: string[]) =>
  names
    .map(
      (n) => `policy "${n}" {\n  source = "./policies/${n}.sentinel"\n  enforcement_level = "advisory"\n}\n`,
    )
    .join('\n');

/** A small, valid kind_a policy set archive, as a client packs a policy directory. */
export const policyArchive = (policy = 'main = rule { true }\n') =>
  tarGzOf([
    { name: 'sentinel.hcl', content: sentinelHcl('allow') },
    { name: 'policies/', type: 'directory' },
    { name: 'policies/allow.sentinel', content: policy },
  ]);

/** A JSON:API error document as the upload URL answers it. */
export interface ErrorDocument {
  errors: Array<{ status: string; title: string; detail?: string }>;
}

/** PUTs bytes to an upload URL the way clients do: octet-stream, no Authorization header. */
export async function putArchive(
  uploadUrl: string,
  body: Uint8Array,
  contentType: string | null = 'application/octet-stream',
) {
  const res = await fetch(uploadUrl, {
    method: 'PUT',
    headers: contentType === null ? {} : { 'content-type': contentType },
    body,
  });
  const text = await res.text();
  // A success has no body; an error has a JSON:API error document.
  const document = (text ? JSON.parse(text) : { errors: [] }) as ErrorDocument;
  return { status: res.status, text, body: document };
}
