import type { Duplex } from 'node:stream';

/** Test helper: collects what a port sends and waits for a pattern, writing in awkward chunks. */
export class Wire {
  text = '';
  private waiters: Array<() => void> = [];

  constructor(readonly stream: Duplex) {
    stream.on('data', (data: Buffer) => {
      this.text += data.toString('latin1');
      for (const wake of this.waiters) wake();
    });
  }

  /** Writes `data` split at pseudo-random points (seeded), so framing is tested across chunk edges. */
  write(data: string, chunking: 'whole' | 'bytes' | number = 'whole'): void {
    const bytes = Buffer.from(data, 'latin1');
    if (chunking === 'whole') {
      this.stream.write(bytes);
      return;
    }
    let seed = typeof chunking === 'number' ? chunking : 0;
    for (let i = 0; i < bytes.length; ) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const size = chunking === 'bytes' ? 1 : 1 + (seed % 7);
      this.stream.write(bytes.subarray(i, i + size));
      i += size;
    }
  }

  /** Resolves with everything received once `pattern` has appeared (and clears the buffer). */
  async until(pattern: string | RegExp, timeoutMs = 5000): Promise<string> {
    const found = () => (typeof pattern === 'string' ? this.text.includes(pattern) : pattern.test(this.text));
    const deadline = Date.now() + timeoutMs;
    while (!found()) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${JSON.stringify(String(pattern))}; got ${JSON.stringify(this.text)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiters = [];
    }
    const all = this.text;
    this.text = '';
    return all;
  }

  /** Raw REPL exec: returns [stdout, stderr]. */
  async exec(code: string, chunking: 'whole' | 'bytes' | number = 'whole'): Promise<[string, string]> {
    this.text = '';
    this.write(`${code}\x04`, chunking);
    const reply = await this.until(/\x04[^\x04]*\x04>$/);
    const body = reply.slice(reply.indexOf('OK') + 2);
    const [stdout = '', stderr = ''] = body.split('\x04');
    return [stdout, stderr];
  }
}
