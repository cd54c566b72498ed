/**
 * The driver's bytes on the wire, against a scripted board: what the firmware needs to see
 * (a lone Ctrl-C, the paste end inside the last chunk, one more Ctrl-C after an aborted paste).
 */
import { describe, expect, it } from 'vitest';
import type { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { encodeExec } from './rawRepl.js';
import { INTERRUPT_SETTLE_MS, ReplDriver } from './replDriver.js';

const HEADER = 'raw REPL; CTRL-B to exit\r\n>';

/** A link whose far end is a function from each write to the bytes the board answers. */
class ScriptedLink implements DeviceLink {
  readonly id = 'scripted';
  readonly address = 'scripted';
  readonly isOpen = true;
  readonly writes: Array<{ text: string; at: number }> = [];
  private readonly listeners = new Set<(chunk: Buffer) => void>();

  constructor(private readonly board: (text: string, link: ScriptedLink) => string | undefined) {}

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  write(bytes: Uint8Array): void {
    const text = Buffer.from(bytes).toString('latin1');
    this.writes.push({ text, at: Date.now() });
    const reply = this.board(text, this);
    if (reply) setTimeout(() => this.send(reply), 1);
  }

  send(text: string): void {
    for (const listener of this.listeners) listener(Buffer.from(text, 'latin1'));
  }

  onData(listener: (chunk: Buffer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onClose(_listener: (reason: DeviceError) => void): () => void {
    return () => {};
  }
}

describe('ReplDriver on the wire', () => {
  it('starts enterRaw with a lone Ctrl-C, then asks for raw mode once it had time to work', async () => {
    const link = new ScriptedLink((text) => (text.endsWith('\x01') ? `\r\n${HEADER}` : undefined));
    const driver = new ReplDriver(link);
    await driver.enterRaw(2000);
    expect(link.writes.map((w) => w.text)).toEqual(['\x03', '\x03\x01']);
    const [first, second] = link.writes;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(INTERRUPT_SETTLE_MS - 5);
    await driver.enterRaw(2000, { banner: true });
    expect(link.writes.slice(2).map((w) => w.text)).toEqual(['\x03', '\x03\x02\x01']);
    driver.dispose();
  });

  it('sends the end of a raw paste inside its last chunk', async () => {
    let received = 0;
    const link = new ScriptedLink((text, l) => {
      if (text.endsWith('\x03\x01')) return HEADER;
      if (text === '\x03') return undefined;
      if (text === '\x05A\x01') return 'R\x01\x80\x00\x01';
      const before = received;
      received += text.replace(/\x04$/, '').length;
      if (Math.floor(received / 128) > Math.floor(before / 128)) setTimeout(() => l.send('\x01'), 1);
      return text.endsWith('\x04') ? '\x04300\n\x04\x04>' : undefined;
    });
    const driver = new ReplDriver(link, { pasteThreshold: 100 });
    await driver.enterRaw(2000);
    const code = `x = '${'a'.repeat(290)}'`;
    const outcome = await driver.exec(encodeExec(code));
    expect(outcome.stdout).toBe('300\n');
    const data = link.writes.slice(3).map((w) => w.text);
    expect(data.join('')).toBe(`${code}\x04`);
    expect(data.at(-1)?.length).toBeGreaterThan(1);
    expect(data.filter((w) => w === '\x04')).toEqual([]);
    driver.dispose();
  });

  it('releases the board with one more Ctrl-C (never Ctrl-D) after it ended a raw paste', async () => {
    let prompted = false;
    const link = new ScriptedLink((text) => {
      if (!prompted && text.endsWith('\x01') && text !== '\x05A\x01') {
        prompted = true;
        return HEADER;
      }
      if (text === '\x05A\x01') return 'R\x01\x80\x00\x01';
      // The board stops reading (a compile error mid-paste) and waits for 0x03/0x04.
      if (text === '\x03')
        return '\x04Traceback (most recent call last):\n  File "<stdin>", line 1\nSyntaxError: invalid syntax\n\x04>';
      return '\x04';
    });
    const driver = new ReplDriver(link, { pasteThreshold: 10 });
    await driver.enterRaw(2000);
    const outcome = await driver.exec(encodeExec(`(${'1 +'.repeat(100)}`));
    expect(outcome.stderr).toContain('SyntaxError');
    const after = link.writes.slice(4).map((w) => w.text);
    expect(after).toContain('\x03');
    expect(after.some((w) => w.includes('\x04'))).toBe(false);
    driver.dispose();
  });
});
