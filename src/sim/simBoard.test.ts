import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Wire } from '../../test/support/simWire.js';
import { FIRMWARE_BANNER, SOFT_REBOOT_GAP_MS } from './replPort.js';
import { SimBoard } from './simBoard.js';
import { BOARD_HEAP_BYTES, PSRAM_HEAP_BYTES } from './vmRuntime.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A second interrupt byte within 20 ms of one is swallowed (Python_Proper.cpp:528): wait longer. */
const DEBOUNCE_MS = 30;
const RAW_HEADER = 'raw REPL; CTRL-B to exit\r\n>';

let board: SimBoard;
let repl: Wire;

beforeEach(async () => {
  board = await SimBoard.start();
  repl = new Wire(board.port('repl'));
});
afterEach(async () => {
  await board.stop();
});

async function enterRaw(): Promise<void> {
  repl.write('\r\x03\x03\x01');
  await repl.until('raw REPL; CTRL-B to exit\r\n>');
}

describe('CDC2 friendly REPL (spec §3.2)', () => {
  it('prints nothing until Ctrl-B, then the firmware banner', async () => {
    await new Promise((r) => setTimeout(r, 100));
    expect(repl.text).toBe('');
    repl.write('\x02');
    expect(await repl.until('>>> ')).toBe(`\r\n${FIRMWARE_BANNER}>>> `);
  });

  it('echoes input and prints results LF-only between CRLF framing', async () => {
    repl.write('print(6*7)\r', 'bytes');
    expect(await repl.until('>>> ')).toBe('print(6*7)\r\n42\n>>> ');
    repl.write('6*7\r', 3);
    expect(await repl.until('>>> ')).toBe('6*7\r\n42\n>>> ');
  });
});

describe('CDC2 raw REPL', () => {
  it.each(['whole', 'bytes', 5, 11] as const)(
    'runs code and frames stdout and errors (chunking %s)',
    async (chunking) => {
      await enterRaw();
      expect(await repl.exec('print("a")\nprint("b")', chunking)).toEqual(['a\nb\n', '']);
      const [stdout, stderr] = await repl.exec('print(1)\n1/0', chunking);
      expect(stdout).toBe('1\n');
      expect(stderr).toBe(
        'Traceback (most recent call last):\n  File "<stdin>", line 2, in <module>\nZeroDivisionError: divide by zero\n',
      );
      expect(stderr).not.toContain('\r');
    },
  );

  it('reads a Ctrl-D that arrives on its own while no script runs as the end of the code', async () => {
    // Each byte is its own USB transfer, so the last one often lands while the board is still busy
    // with the one before (or with an autosave): only a running script peeks for it as an interrupt.
    await enterRaw();
    const replies: string[] = [];
    for (let i = 0; i < 200; i++) replies.push((await repl.exec(`print(${i})`, 'bytes'))[0]);
    expect(replies).toEqual(Array.from({ length: 200 }, (_, i) => `${i}\n`));
  });

  it('keeps globals between execs and has the jumperless module pre-imported', async () => {
    await enterRaw();
    await repl.exec('x = 41');
    expect(await repl.exec('print(x + 1)')).toEqual(['42\n', '']);
    expect(
      await repl.exec('import jumperless\nprint(type(jumperless).__name__, "time" in globals())'),
    ).toEqual(['module True\n', '']);
  });

  it('answers Ctrl-A while raw with the short header and Ctrl-B with the banner', async () => {
    await enterRaw();
    repl.write('\x01');
    expect(await repl.until('>')).toBe('raw REPL; CTRL-B to exit\r\n>');
    repl.write('\x02');
    expect(await repl.until('>>> ')).toContain('jumperless-v5 v5.7.11.0 with rp2350b');
  });

  it('supports raw-paste with window flow control', async () => {
    await enterRaw();
    repl.write('\x05A\x01');
    const header = await repl.until(/R\x01..\x01/s);
    expect(header.charCodeAt(0)).toBe(0x52);
    const window = header.charCodeAt(2) | (header.charCodeAt(3) << 8);
    expect(window).toBeGreaterThan(0);
    const code = `s = ${JSON.stringify('z'.repeat(window * 3))}\nprint(len(s))\n`;
    let acks = 0;
    let sent = 0;
    let credit = window;
    while (sent < code.length) {
      if (credit === 0) {
        await repl.until('\x01');
        acks += 1;
        credit += window;
      }
      const piece = code.slice(sent, sent + credit);
      repl.write(piece, 4);
      sent += piece.length;
      credit -= piece.length;
    }
    repl.write('\x04');
    const reply = await repl.until(/\x04[^\x04]*\x04[^\x04]*\x04>$/);
    expect(acks).toBeGreaterThanOrEqual(2);
    expect(reply.replace(/\x01/g, '')).toBe(`\x04${window * 3}\n\x04\x04>`);
  });

  it('is interrupted by Ctrl-C during time.sleep and keeps working', async () => {
    await enterRaw();
    repl.write('import time\nprint("start")\ntime.sleep(30)\x04');
    await repl.until('start\n');
    repl.write('\x03');
    const reply = await repl.until(/\x04>$/);
    expect(reply).toContain('KeyboardInterrupt');
    expect(await repl.exec('print("after")')).toEqual(['after\n', '']);
    // A loop that only calls quick module functions notices Ctrl-C at every call.
    repl.write('print("loop")\nwhile True:\n    overlay_count()\n\x04');
    await repl.until('loop\n');
    await delay(DEBOUNCE_MS);
    repl.write('\x03');
    expect(await repl.until(/\x04>$/)).toContain('KeyboardInterrupt');
    expect(await repl.exec('x = 3\nprint(x)')).toEqual(['3\n', '']);
  });

  it('soft-resets on Ctrl-D with an empty line: Python state cleared, raw mode kept', async () => {
    await enterRaw();
    await repl.exec('x = 1');
    repl.write('\x04');
    expect(await repl.until('>')).toBe('OK\r\nsoft reboot\r\nraw REPL; CTRL-B to exit\r\n>');
    const [, stderr] = await repl.exec('print(x)');
    expect(stderr).toContain("NameError: name 'x' isn't defined");
    // As on the board, the `jumperless` global does not come back; the module and its names do.
    expect((await repl.exec('print(jumperless.__name__)'))[1]).toContain("NameError: name 'jumperless'");
    expect(await repl.exec("import jumperless\nprint(jumperless.__name__, 'connect' in globals())")).toEqual([
      'jumperless True\n',
      '',
    ]);
  });

  it('frames sys.exit() with one OK and sends the reset reply in separate writes, as the board does', async () => {
    await enterRaw();
    const chunks: Array<{ text: string; at: number }> = [];
    board
      .port('repl')
      .on('data', (data: Buffer) => chunks.push({ text: data.toString('latin1'), at: Date.now() }));
    repl.write("print('bye')\nimport sys\nsys.exit()\x04");
    expect(await repl.until(RAW_HEADER)).toBe(`OKbye\n\x04\x04soft reboot\r\n${RAW_HEADER}`);
    const reboot = chunks.findIndex((c) => c.text.startsWith('soft reboot'));
    expect(
      chunks
        .slice(0, reboot)
        .map((c) => c.text)
        .join(''),
    ).toBe('OKbye\n\x04\x04');
    expect(chunks[reboot]?.text).toBe('soft reboot\r\n');
    expect(
      chunks
        .slice(reboot + 1)
        .map((c) => c.text)
        .join(''),
    ).toBe(RAW_HEADER);
    expect((chunks[reboot]?.at ?? 0) - (chunks[reboot - 1]?.at ?? 0)).toBeGreaterThanOrEqual(
      SOFT_REBOOT_GAP_MS - 2,
    );
  });

  it('drops REPL bytes that were sent before a soft reset had drained the input', async () => {
    await enterRaw();
    repl.write('\x04');
    repl.write("print('lost')\x04");
    expect(await repl.until(RAW_HEADER)).toBe(`OK\r\nsoft reboot\r\n${RAW_HEADER}`);
    await delay(100);
    expect(repl.text).toBe('');
    expect(await repl.exec("print('kept')")).toEqual(['kept\n', '']);
  });

  it('aborts a running script on Ctrl-D and soft-resets (bytes inferred from the firmware)', async () => {
    await enterRaw();
    await repl.exec('x = 1');
    repl.write("import time\nprint('start')\ntime.sleep(30)\x04");
    await repl.until('start\n');
    repl.write('\x04');
    expect(await repl.until(RAW_HEADER)).toBe(`\x04<class 'SystemExit'>\n\x04>soft reboot\r\n${RAW_HEADER}`);
    expect((await repl.exec('print(x)'))[1]).toContain('NameError');
  });

  it('takes a control byte as an interrupt only when it is the first byte waiting', async () => {
    await enterRaw();
    repl.write("import time\ntime.sleep(0.5)\nprint('done')\x04");
    await repl.until('OK');
    repl.write('\r\x03');
    // The script ends normally; then the REPL gets CR (added to the line) and Ctrl-C (clears it).
    expect(await repl.until('\x04>')).toBe('done\n\x04\x04>');
    expect(await repl.exec("print('clean')")).toEqual(['clean\n', '']);
    repl.write('time.sleep(30)\x04');
    await repl.until('OK');
    repl.write('\x11');
    expect(await repl.until('\x04>')).toContain('KeyboardInterrupt: \n');
  });

  it('wedges on a Ctrl-C behind another byte while a script hangs, silent on every port until a power cycle', async () => {
    await enterRaw();
    const main = new Wire(board.port('main'));
    const hang = 'import time\nwhile True:\n    time.sleep(0.01)\x04';
    // A lone Ctrl-C is seen: no wedge.
    repl.write(hang);
    await repl.until('OK');
    repl.write('\x03');
    expect(await repl.until('\x04>')).toContain('KeyboardInterrupt');
    expect(board.wedged).toBeUndefined();
    // A raw-mode request parked at the head hides the Ctrl-C behind it (issue 21's wedge).
    repl.write(hang);
    await repl.until('OK');
    repl.write('\x01');
    await delay(DEBOUNCE_MS);
    repl.write('\x03');
    await delay(DEBOUNCE_MS);
    repl.write('\x03');
    main.write('?');
    await delay(400);
    expect(board.wedged).toMatchObject({ port: 'repl', parked: 0x01 });
    expect(repl.text).toBe('');
    expect(main.text).toBe('');
    await board.faults.reboot();
    expect(board.wedged).toBeUndefined();
    await repl.until('>>> ');
    await enterRaw();
    expect(await repl.exec("print('back')")).toEqual(['back\n', '']);
  });

  it('waits for one more Ctrl-C after a raw paste is interrupted', async () => {
    await enterRaw();
    repl.write('\x05A\x01');
    await repl.until(/R\x01..\x01/s);
    repl.write('x = 1\x03');
    expect(await repl.until('\x04')).toBe('\x04');
    await delay(100);
    expect(repl.text).toBe('');
    repl.write('\x03');
    expect(await repl.until('>')).toBe('\x04KeyboardInterrupt: \n\x04>');
    expect(await repl.exec("print('next')")).toEqual(['next\n', '']);
  });

  it('drops stray control bytes in friendly mode, keeps them as data in raw mode', async () => {
    repl.write('\x02');
    await repl.until('>>> ');
    repl.write('\x0e\x0f\x13\x11print(5)\r');
    expect(await repl.until('>>> ')).toBe('print(5)\r\n5\n>>> ');
    await enterRaw();
    const [, stderr] = await repl.exec('\x0eprint(5)');
    expect(stderr).toContain('SyntaxError');
  });

  it("answers as the firmware's sys, gc and machine, and reboots on machine.reset()", async () => {
    await enterRaw();
    expect(
      await repl.exec(
        'import sys, gc, machine\nprint(sys.platform, len(sys.implementation), hasattr(sys.stdout, "flush"))\nprint(gc.mem_free() + gc.mem_alloc(), machine.reset_cause())',
      ),
    ).toEqual([`jumperless-rp2350 3 False\n${BOARD_HEAP_BYTES} 1\n`, '']);
    const rebooted = new Promise<void>((resolve) => board.once('reboot', () => resolve()));
    repl.write('machine.reset()\x04');
    await rebooted;
    repl = new Wire(board.port('repl'));
    await enterRaw();
    expect(await repl.exec('import machine\nprint(machine.reset_cause())')).toEqual(['3\n', '']);
  });

  it('reports a bigger heap for a board with PSRAM', async () => {
    await board.stop();
    board = await SimBoard.start({ psram: true });
    repl = new Wire(board.port('repl'));
    await enterRaw();
    expect(await repl.exec('import gc\nprint(gc.mem_free() + gc.mem_alloc())')).toEqual([
      `${PSRAM_HEAP_BYTES}\n`,
      '',
    ]);
  });

  it('reboots (simulated watchdog) when a pure-Python loop ignores Ctrl-C', async () => {
    await board.stop();
    board = await SimBoard.start({ watchdogMs: 200 });
    repl = new Wire(board.port('repl'));
    await enterRaw();
    await repl.exec('x = 5');
    repl.write('while True:\n    pass\n\x04');
    await repl.until('OK');
    repl.write('\x03');
    expect(await repl.until('>>> ')).toContain(FIRMWARE_BANNER);
    await enterRaw();
    const [, stderr] = await repl.exec('print(x)');
    expect(stderr).toContain('NameError');
  });

  it('survives hostile bytes on every port and still answers', async () => {
    let seed = 7;
    const noise = Buffer.from(
      Array.from({ length: 4000 }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed & 0xff;
      }),
    );
    for (const name of ['main', 'uart', 'backchannel'] as const) board.port(name).write(noise);
    // On CDC2, noise may start code; stop it, then go back to a clean raw prompt.
    repl.write(noise.toString('latin1').replace(/\x04/g, ''));
    repl.write('\x03\x03\x02');
    await repl.until('>>> ', 10_000);
    await enterRaw();
    expect(await repl.exec('print("alive")')).toEqual(['alive\n', '']);
  });
});

describe('parts', () => {
  it('refuses a malformed parts file with its line and the reason', async () => {
    const text = '{\n  "parts": [\n    {"type": "resistor", "between": [1, 2], "ohms": "lots"}\n  ]\n}\n';
    await expect(SimBoard.start({ partsFileText: text })).rejects.toThrow(/line 3: .*ohms/);
  });
});

describe('faults', () => {
  it('unplug closes the port and replug brings a new one', async () => {
    const closed = new Promise((resolve) => board.port('repl').once('close', resolve));
    await board.faults.unplug();
    await closed;
    expect(board.plugged).toBe(false);
    expect(() => board.port('repl')).toThrow(/unplugged/);
    await board.faults.replug();
    repl = new Wire(board.port('repl'));
    await enterRaw();
    expect(await repl.exec('print(1)')).toEqual(['1\n', '']);
  });

  it('hang stops answering until lifted', async () => {
    board.faults.hang(true);
    repl.write('\x02');
    await new Promise((r) => setTimeout(r, 200));
    expect(repl.text).toBe('');
    board.faults.hang(false);
    await enterRaw();
    expect(await repl.exec('print(2)')).toEqual(['2\n', '']);
  });

  it('garbage shows up on the port', async () => {
    board.faults.garbage('repl', Uint8Array.from([0xff, 0x00, 0x41]));
    expect(await repl.until('A')).toBe('\xff\x00A');
  });

  it('slow delivers every byte, late', async () => {
    board.faults.slow(1);
    await enterRaw();
    repl.write('print("slow")\x04');
    expect(await repl.until('\x04\x04>', 15_000)).toBe('OKslow\n\x04\x04>');
  });

  it('reboot resets Python and announces itself, flash files survive', async () => {
    await enterRaw();
    await repl.exec('x = 1\nf = open("/keep.txt", "w")\nf.write("kept")\nf.close()');
    const rebooted = new Promise<void>((resolve) => board.once('reboot', () => resolve()));
    await board.faults.reboot();
    await rebooted;
    repl = new Wire(board.port('repl'));
    await enterRaw();
    expect((await repl.exec('print(x)'))[1]).toContain('NameError');
    expect(await repl.exec('print(open("/keep.txt").read())')).toEqual(['kept\n', '']);
  });
});

describe('CDC0 main port (spec §2) and CDC3 backchannel (spec §4)', () => {
  it('answers ?, ENQ and > one-liners with CRLF output', async () => {
    const main = new Wire(board.port('main'));
    main.write('?');
    expect(await main.until('\r\n')).toBe('Jumperless firmware version: 5.7.11.0\r\n');
    main.write('\x05');
    expect(await main.until('CDC3: Jumperless TUI\r\n')).toContain('CDC2: JL Micropython\r\n');
    main.write('>print(6*7)\n');
    expect(await main.until('42\r\n')).toContain('>print(6*7)');
    main.write('>adc_get\r');
    await new Promise((r) => setTimeout(r, 100));
    main.write('m\r');
    const menu = await main.until('- = remove connections');
    expect(menu).toContain('\x0e');
    expect(menu).toContain('\t\tMenu');
  });

  it('backchannel prints its YAML help and refuses mutating characters', async () => {
    const back = new Wire(board.port('backchannel'));
    back.write(':help\r');
    // The verb line is echoed as typed, then CRLF, then the answer (Ser3Backchannel.cpp usbSer3_readLine).
    expect(await back.until('---YAML_HELP_END---\r\n')).toMatch(/^:help\r\n---YAML_HELP_START---\r\n/);
    back.write('x');
    const reply = await back.until('}\r\n');
    expect(JSON.parse(reply)).toMatchObject({ error: 'blocked', cmd: 'x', hint: ':cmds' });
    back.write(':ver\n');
    expect(await back.until('5.7.11.0\r\n')).toBe(':ver\r\n5.7.11.0\r\n');
  });
});
