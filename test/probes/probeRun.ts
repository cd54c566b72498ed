/**
 * The virtual board against the firmware probes (src/board/probes/*.json), over a real raw REPL on
 * both ways a user reaches a board: TCP (as through ser2net) and a pseudo-terminal opened with
 * serialport. At each firmware release, every probe that holds for it runs, the mutating and power-on
 * ones included, on a freshly booted board running that release. The newest release runs over both
 * transports; the others over TCP (the transport does not change what the firmware answers).
 *
 * One run per test file (firmwareProbes*.test.ts), so that the runs, each a minute of board time on
 * a loaded machine, go to both of the suite's workers instead of one after another on one.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FirmwareVersion } from '../../src/board/firmware.js';
import { type ExecProbe, probesFor, type RawProbe } from '../../src/board/probes.js';
import type { DeviceLink } from '../../src/device/link.js';
import { type ProbeResult, runExecProbes, runRawProbes } from '../../src/device/probeRunner.js';
import { serialLink } from '../../src/device/serialLink.js';
import { DeviceSession } from '../../src/device/session.js';
import { tcpLink } from '../../src/device/tcpLink.js';
import { SimBoard } from '../../src/sim/index.js';

export type ProbeRun = [FirmwareVersion, 'tcp' | 'pty'];

function report(r: ProbeResult): string {
  return `${r.id} (${r.source})\n  why: ${r.why}\n  expected: ${JSON.stringify(r.expected)}\n  got:      ${JSON.stringify(r.got)}`;
}

/** Every probe of each release in `runs`, on a board of its own running that release, over the transport named. */
export function describeProbeRuns(runs: ProbeRun[]): void {
  describe.each(runs)('firmware probes on the virtual board running %s over %s', (firmware, transport) => {
    const probes = probesFor(firmware);
    const execProbes = probes.filter((p): p is ExecProbe => p.kind === 'exec');
    const rawProbes = probes.filter((p): p is RawProbe => p.kind === 'raw');
    let board: SimBoard;
    let ptyDir: string | undefined;
    const results = new Map<string, ProbeResult>();

    beforeAll(async () => {
      board = await SimBoard.start({ firmware });
      let makeLink: () => DeviceLink;
      if (transport === 'tcp') {
        const ports = await board.serveTcp();
        makeLink = () => tcpLink('127.0.0.1', ports.repl);
      } else {
        ptyDir = mkdtempSync(join(tmpdir(), 'jl-probes-'));
        const paths = await board.servePty(ptyDir);
        makeLink = () => serialLink(paths.repl);
      }
      const session = new DeviceSession(makeLink());
      for (const r of await runExecProbes(session, execProbes, { mutating: true, fresh: true })) {
        results.set(r.id, r);
      }
      await session.close();
      const link = makeLink();
      for (const r of await runRawProbes(link, rawProbes, { mutating: true })) results.set(r.id, r);
      await link.close();
    }, 180_000);

    afterAll(async () => {
      await board?.stop();
      if (ptyDir) rmSync(ptyDir, { recursive: true, force: true });
    });

    it.each(probes.map((p) => [p.id]))('%s', (id) => {
      const r = results.get(id);
      expect(r, `${id} did not run`).toBeDefined();
      if (r && !r.ok) expect.fail(report(r));
    });
  });
}
