/**
 * Who holds a serial port open, read from /proc on Linux (each process's fd symlinks). Elsewhere,
 * or without permission to look, the answer is simply empty: "busy" then says so.
 */
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';

export interface PortHolder {
  pid: number;
  /** The process's command line (or name), e.g. `python3 -m mpremote`. */
  command: string;
}

export async function findPortHolders(devicePath: string, procRoot = '/proc'): Promise<PortHolder[]> {
  let target: string;
  try {
    target = await realpath(devicePath);
  } catch {
    return [];
  }
  let pids: string[];
  try {
    pids = (await readdir(procRoot)).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const holders: PortHolder[] = [];
  await Promise.all(
    pids.map(async (pid) => {
      const fdDir = join(procRoot, pid, 'fd');
      let fds: string[];
      try {
        fds = await readdir(fdDir);
      } catch {
        return; // gone, or not ours to look at
      }
      for (const fd of fds) {
        const link = await readlink(join(fdDir, fd)).catch(() => '');
        if (link === target) {
          holders.push({ pid: Number(pid), command: await commandOf(procRoot, pid) });
          return;
        }
      }
    }),
  );
  return holders.sort((a, b) => a.pid - b.pid);
}

async function commandOf(procRoot: string, pid: string): Promise<string> {
  const cmdline = await readFile(join(procRoot, pid, 'cmdline'), 'utf8').catch(() => '');
  const command = cmdline.split('\0').filter(Boolean).join(' ').trim();
  if (command) return command.slice(0, 200);
  return (await readFile(join(procRoot, pid, 'comm'), 'utf8').catch(() => '?')).trim();
}

export function describeHolders(holders: readonly PortHolder[]): string {
  if (holders.length === 0) return 'another program holds it (the OS did not say which)';
  return `held by ${holders
    .map((h) => (h.pid === process.pid ? `this process (pid ${h.pid})` : `pid ${h.pid} (${h.command})`))
    .join(', ')}`;
}
