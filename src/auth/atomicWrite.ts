/**
 * Replace a file so that readers see either the old or the new version, never a half-written
 * one: write a temp file in the same folder, flush it, then rename it over the target.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  // Persist the rename itself; some filesystems refuse to open a folder, which is fine.
  const dir = await open(folder, 'r').catch(() => undefined);
  await dir
    ?.sync()
    .catch(() => undefined)
    .finally(() => dir.close());
}
