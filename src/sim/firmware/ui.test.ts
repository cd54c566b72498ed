/**
 * The probe, OLED, overlay, filesystem and misc groups through real MicroPython: the simulated
 * board's CDC2 raw REPL, with inputs and Ctrl-C arriving while a script waits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wire } from '../../../test/support/simWire.js';
import { SimBoard } from '../simBoard.js';

let board: SimBoard;
let repl: Wire;
let main: Wire;

beforeAll(async () => {
  board = await SimBoard.start();
  repl = new Wire(board.port('repl'));
  main = new Wire(board.port('main'));
  repl.write('\r\x03\x03\x01');
  await repl.until('raw REPL; CTRL-B to exit\r\n>');
});
afterAll(async () => {
  await board.stop();
});

const later = (ms: number, fn: () => void) => setTimeout(fn, ms);

/** Runs code and returns stdout, failing the test on a traceback. */
async function run(code: string): Promise<string> {
  const [stdout, stderr] = await repl.exec(code);
  expect(stderr).toBe('');
  return stdout;
}

describe('probe (spec §6.10, §3.3)', () => {
  it('a blocking probe_read() is answered by a touch from outside', async () => {
    const reply = repl.exec('p = probe_read()\nprint(p, int(p), bool(p), p == 12, p + 1, p + "!")');
    // (p == 12 is False on the board too: a ProbePad equals only another ProbePad.)
    later(150, () => board.inputs.probeTouch(12));
    expect(await reply).toEqual(['PAD_12 12 True False 13 PAD_12!\n', '']);
    board.inputs.probeRelease();
  });

  it('Ctrl-C ends a blocking probe_read() with KeyboardInterrupt and a debug line on the main port', async () => {
    main.text = '';
    const reply = repl.exec('probe_read()');
    later(200, () => repl.write('\x03'));
    const [stdout, stderr] = await reply;
    expect(stdout).toBe('');
    expect(stderr).toMatch(/KeyboardInterrupt: Ctrl\+Q\n$/);
    expect(await main.until(/call #\d+\r\n/)).toMatch(
      /^DEBUG: Interrupt detected in jl_probe_read_blocking, call #\d+\r\n$/,
    );
    expect(await run('print("still alive")')).toBe('still alive\n');
  });

  it('pads print their names and NO_PAD is false', async () => {
    expect(
      await run('print(probe_read(False), bool(NO_PAD), int(NO_PAD), D13_PAD, TOP_RAIL_PAD, LOGO_PAD_TOP)'),
    ).toBe('NO_PAD False -1 NANO_D13 TOP_RAIL LOGO_PAD_TOP\n');
    const [, stderr] = await repl.exec('1 + D13_PAD');
    expect(stderr).toContain("TypeError: unsupported types for __add__: 'int', 'ProbePad'");
  });

  it('a button click answers probe_button(); the constants compare with it', async () => {
    const reply = repl.exec(
      'b = probe_button()\nprint(b, int(b), b == BUTTON_REMOVE, b == 2, bool(BUTTON_NONE))',
    );
    later(150, () => board.inputs.button('remove'));
    expect(await reply).toEqual(['REMOVE 2 True False False\n', '']);
  });

  it('the clickwheel and switch take events from outside; the position is in raw counts', async () => {
    board.inputs.clickwheelTurn(3);
    board.inputs.switchPosition('select');
    await new Promise((r) => setTimeout(r, 50));
    expect(
      await run(
        'print(clickwheel_get_position(), clickwheel_get_direction(), check_switch_position() == SWITCH_SELECT)',
      ),
    ).toBe('24 1 True\n');
  });

  it('native-style argument checks', async () => {
    const [, stderr] = await repl.exec('probe_read(blocking=False)');
    expect(stderr).toContain("TypeError: function doesn't take keyword arguments");
  });
});

describe('filesystem (spec §6.13)', () => {
  it('jfs round trip, with open() and os seeing the same files', async () => {
    const out = await run(
      [
        'with jfs.open("/notes.txt", "w") as f:',
        '    print(f.write("line 1\\n"), f.print("line", 2))',
        'f = jfs.open("/notes.txt")',
        'print(repr(f.read()), f.name(), f.size(), f.tell())',
        'f.close()',
        'print(repr(open("/notes.txt").read()))',
        'with open("/from_python.txt", "w") as g:',
        '    g.write("hi")',
        'print(jfs.exists("/from_python.txt"), "notes.txt" in jfs.listdir("/"), "slots/" in jfs.listdir("/"))',
        'import os',
        'print(os.stat("/notes.txt")[6], fs_read("/from_python.txt"))',
      ].join('\n'),
    );
    expect(out).toBe(
      "7 7\n'line 1\\nline 2\\n' /notes.txt 14 14\n'line 1\\nline 2\\n'\nTrue True True\n14 hi\n",
    );
    expect(Buffer.from(board.files().get('/notes.txt') ?? []).toString()).toBe('line 1\nline 2\n');
  });

  it('binary mode and error strings', async () => {
    const out = await run(
      [
        'with jfs.open("/b.bin", "wb") as f:',
        '    f.write(bytes([0, 1, 255]))',
        'f = jfs.open("/b.bin", "rb")',
        'print(f.read(), jfs.SEEK_END)',
        'f.close()',
        'for code in ("jfs.open(\'/missing\')", "f.read()", "jfs.mkdir(\'/slots\')", "jfs.open(\'/b.bin\', \'rb\').print(1)"):',
        '    try:',
        '        exec(code)',
        '    except Exception as e:',
        '        print(type(e).__name__, e)',
      ].join('\n'),
    );
    expect(out).toBe(
      "b'\\x00\\x01\\xff' 2\nOSError [Errno 2] ENOENT\nValueError I/O operation on closed file\n" +
        'OSError 20\nValueError print not supported on binary file\n',
    );
  });

  it('walk() lists the seeded layout; import jfs works', async () => {
    const out = await run('import jfs as j\nprint(j is jfs)\nwalk("/python_scripts")');
    expect(out).toContain('True\n');
    expect(out).toMatch(/^d\|\/python_scripts\/lib\|\d+$/m);
    expect(out).toContain('f|/python_scripts/history.txt|0\n');
  });

  it('a soft reset closes open jfs files', async () => {
    const full = await run(
      [
        'keep = []',
        'try:',
        '    while True:',
        '        keep.append(jfs.open("/notes.txt"))',
        'except OSError as e:',
        '    print(len(keep) >= 16, e)',
      ].join('\n'),
    );
    expect(full).toBe('True [Errno 2] ENOENT\n');
    repl.write('\x04');
    await repl.until('raw REPL; CTRL-B to exit\r\n>');
    expect(await run('print(jfs.open("/notes.txt").read(4))')).toBe('line\n');
  });
});

describe('OLED and overlays (spec §6.11, §6.12)', () => {
  it('the display is off at boot; oled_connect starts it with its two I2C bridges', async () => {
    const out = await run(
      [
        'print(oled_get_framebuffer(), oled_get_framebuffer_size())',
        'oled_connect()',
        'print(len(oled_get_framebuffer()), bool(is_connected(GPIO_7, NANO_D2)), bool(is_connected(GPIO_8, NANO_D3)))',
      ].join('\n'),
    );
    expect(out).toBe('None (0, 0, 0)\n512 True True\n');
  });

  it('oled_print draws into a framebuffer that Python can read back', async () => {
    const out = await run(
      [
        'oled_clear()',
        'print(sum(oled_get_framebuffer()))',
        'oled_print("Hello", 1)',
        'fb = oled_get_framebuffer()',
        'print(type(fb).__name__, len(fb), sum(fb) > 0, oled_get_framebuffer_size())',
        'print(oled_set_pixel(0, 0, 1), oled_get_pixel(0, 0), oled_set_framebuffer(b"x"))',
      ].join('\n'),
    );
    expect(out).toBe('0\nbytes 512 True (128, 32, 512)\nTrue 1 False\n');
  });

  it('oled_copy_print mirrors print() and survives a soft reset', async () => {
    await run('oled_clear()\noled_copy_print(True)\nprint("mirrored")');
    expect(await run('print(sum(oled_get_framebuffer()) > 0)')).toBe('True\n');
    repl.write('\x04');
    await repl.until('raw REPL; CTRL-B to exit\r\n>');
    expect(await run('oled_clear()\nprint("again")\nprint(sum(oled_get_framebuffer()) > 0)')).toBe(
      'again\nTrue\n',
    );
    await run('oled_copy_print(False)\noled_clear()\nprint("quiet")');
    expect(await run('print(sum(oled_get_framebuffer()))')).toBe('0\n');
  });

  it('overlays: argument order, the too-small error and the serialized fragment', async () => {
    const out = await run(
      [
        'overlay_clear_all()',
        'print(overlay_set("bar", 3, 2, 1, 2, [[0x200000, 0x002000]]))',
        'try:',
        '    overlay_set("x", 1, 1, 2, 2, [1])',
        'except ValueError as e:',
        '    print(e)',
        'print(overlay_count(), overlay_shift("bar", 28, 0))',
        'print(overlay_serialize())',
      ].join('\n'),
    );
    expect(out).toBe(
      '0\nColor array too small\n1 1\n  "overlays": [\n' +
        '    {"name":"bar","row":2,"col":1,"width":2,"height":1,"colors":["200000","002000"]}\n  ]\n',
    );
    const json = await run('print(get_state())');
    const state = JSON.parse(json) as { overlays: unknown[] };
    expect(state.overlays).toEqual([
      { name: 'bar', row: 2, col: 1, width: 2, height: 1, colors: ['200000', '002000'] },
    ]);
  });
});

describe('misc and help (spec §6.14, §6.9, §3.1)', () => {
  it('help() is the Jumperless help and nodes_help() prints; the colours go to the main port', async () => {
    main.text = '';
    const out = await run('help("PROBE")\nnodes_help()\nchange_terminal_color(196)');
    expect(out).toContain('probe_read(blocking=True)');
    expect(out).toContain('Jumperless Node Reference');
    expect(out).not.toContain('\x1b');
    expect(await main.until('\x1b[38;5;196m')).toContain('\x1b[38;5;');
  });

  it('retained screens: handles, show, and the module lists exactly the firmware names', async () => {
    const out = await run(
      [
        'oled_screen_reset()',
        's = oled_screen()',
        'print(s, oled_add_text(s, "A0 {adc:0}", halign=1, valign=1), oled_screen_show(s))',
        'print(sum(oled_get_framebuffer()) > 0)',
        'oled_screen_reset()',
        'print(sum(oled_get_framebuffer()))',
        'import jumperless',
        'print([n for n in dir(jumperless) if n.startswith("_")], len(dir(jumperless)))',
      ].join('\n'),
    );
    expect(out).toBe("1 256 True\nTrue\n0\n['__class__', '__name__', '__dict__'] 422\n");
  });

  it('pause_core2 and send_raw check their argument types as the firmware does', async () => {
    const out = await run(
      [
        'pause_core2("on")',
        'for code in ("pause_core2(None)", "send_raw(None, 1, 1)"):',
        '    try:',
        '        exec(code)',
        '    except Exception as e:',
        '        print(type(e).__name__, e)',
      ].join('\n'),
    );
    expect(out).toBe(
      "TypeError pause_core2() argument must be bool, int, or string\nValueError Chip must be integer (0-11) or string ('A'-'L')\n",
    );
  });

  it('a 1 ms sleep (what check_interrupt() does) lets Ctrl-C stop a loop that only computes', async () => {
    // check_interrupt itself is gone after the soft resets above, as on the board.
    const reply = repl.exec('import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep_ms(1)');
    later(200, () => repl.write('\x03'));
    const [, stderr] = await reply;
    expect(stderr).toContain('KeyboardInterrupt');
    expect(Number(await run('print(n)'))).toBeGreaterThan(0);
  });

  it('run_app blocks in a known app until the clickwheel is held; an unknown one returns at once', async () => {
    const reply = repl.exec('run_app("Snake")\nprint("back")');
    later(150, () => board.inputs.clickwheelButton('held'));
    expect(await reply).toEqual(['back\n', '']);
    board.inputs.clickwheelButton('released');
    main.text = '';
    expect(await run('print(run_app("no such app"))')).toBe('None\n');
    expect(await main.until('App not found\r\n')).toContain('App not found');
  });
});
