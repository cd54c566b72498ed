import { Duplex } from 'node:stream';

/**
 * One USB serial port of the virtual board, as a host sees it: a byte stream. Ends (and is
 * destroyed) when the cable is pulled; a replug makes a new one.
 */
export class SimPort extends Duplex {
  private delayMs = 0;
  private pending: Buffer[] = [];
  private draining = false;

  constructor(private readonly onWrite: (data: Buffer) => void) {
    super();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.onWrite(chunk);
    callback();
  }

  /** Bytes from the board to the host (honours the per-byte delay of the `slow` fault). */
  deliver(data: Uint8Array): void {
    if (this.destroyed || data.length === 0) return;
    if (this.delayMs <= 0 && !this.draining) {
      this.push(Buffer.from(data));
      return;
    }
    this.pending.push(Buffer.from(data));
    this.drainSlowly();
  }

  setByteDelay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  private drainSlowly(): void {
    if (this.draining) return;
    this.draining = true;
    const step = () => {
      if (this.destroyed) return;
      const head = this.pending[0];
      if (!head) {
        this.draining = false;
        return;
      }
      this.push(head.subarray(0, 1));
      if (head.length > 1) this.pending[0] = head.subarray(1);
      else this.pending.shift();
      setTimeout(step, this.delayMs);
    };
    step();
  }
}
