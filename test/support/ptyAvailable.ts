/**
 * Whether this machine can make the virtual board's ptys (socat or python3, src/sim/ptyBridge.ts).
 * Tests over ptys skip when it cannot, and say why once, on stderr.
 */
import { ptyBridge } from '../../src/sim/ptyBridge.js';

const bridge = ptyBridge();

/** Why tests over virtual ptys cannot run here, or undefined when they can. */
export const PTY_MISSING: string | undefined = 'missing' in bridge ? bridge.missing : undefined;

if (PTY_MISSING) process.stderr.write(`skipping the tests over virtual ptys: ${PTY_MISSING}\n`);

/** The transports to test, without `pty` when this machine cannot make one. */
export function transportsHere<T extends string>(transports: readonly T[]): T[] {
  return transports.filter((transport) => transport !== 'pty' || PTY_MISSING === undefined);
}
