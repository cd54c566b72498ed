/**
 * A pseudo-terminal at `path` bridged to a TCP port on loopback (the pty bridge of src/sim), kept
 * there for as long as the test wants it: the bridge connects while a program (ser2net here) has
 * the pty open and lets go when it closes it; socat ends at that close, so a new one is started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ptyBridge } from '../../src/sim/ptyBridge.js';

export interface PtyToPort {
  stop(): void;
}

export async function ptyToPort(path: string, port: number): Promise<PtyToPort> {
  const bridge = ptyBridge();
  if ('missing' in bridge) throw new Error(bridge.missing);
  let child: ChildProcess | undefined;
  let stopped = false;
  const start = () => {
    const started = spawn(bridge.command, bridge.args(path, port), { stdio: 'ignore' });
    child = started;
    started.on('exit', () => {
      if (!stopped && child === started) start();
    });
  };
  start();
  for (let i = 0; i < 1500 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 10));
  if (!existsSync(path)) {
    stopped = true;
    child?.kill();
    throw new Error(`${bridge.command} made no pty at ${path} within 15 s`);
  }
  return {
    stop() {
      stopped = true;
      child?.kill();
    },
  };
}
