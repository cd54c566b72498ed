import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { API_REFERENCE } from './apiReference.js';
import { apiReference, pythonErrorAt, scriptRun } from './scripts.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

const BLINK = [
  'import time',
  "gpio_set_dir(1, 'OUTPUT')",
  'for i in range(3):',
  "    gpio_set(1, 'HIGH')",
  '    time.sleep_ms(20)',
  "    gpio_set(1, 'LOW')",
  '    time.sleep_ms(20)',
  "    print('blink', i)",
  "gpio_set_dir(1, 'INPUT')",
].join('\n');

describe('scripts: save with a syntax check, run with a time limit and its output', () => {
  it('saves a script the board compiles and runs it in one call, with the jumperless functions at hand', async () => {
    const { result } = await h.run(scriptRun, { name: 'blink', code: BLINK });
    expect(result).toMatchObject({
      path: '/python_scripts/blink.py',
      saved: 'new',
      ran: true,
      ok: true,
      output: 'blink 0\nblink 1\nblink 2\n',
      error: null,
      timed_out: false,
    });
    expect(await h.python("open('/python_scripts/blink.py').read()")).toBe(BLINK);
    expect(await h.python("[n for n in __import__('os').listdir('/python_scripts') if 'part' in n]")).toEqual(
      [],
    );
    // Saved again without running: replaced whole; then run by name.
    const again = await h.run(scriptRun, { name: 'blink.py', code: "print('hello')", run: false });
    expect(again.result).toMatchObject({
      path: '/python_scripts/blink.py',
      saved: 'replaced',
      ran: false,
      output: '',
    });
    expect((await h.run(scriptRun, { name: 'blink' })).result).toMatchObject({ ok: true, output: 'hello\n' });
  });

  it('refuses code with a syntax error, naming the line, and saves and runs nothing', async () => {
    await expect(
      h.run(scriptRun, { name: 'broken', code: "print('a')\nfor i in range(3)\n    print(i)\n" }),
    ).rejects.toMatchObject({
      code: 'syntax_error',
      message: '/python_scripts/broken.py, line 2: SyntaxError: invalid syntax. Nothing was saved or run.',
    });
    expect(await h.python("__import__('jfs').exists('/python_scripts/broken.py')")).toBe(false);
  });

  it('refuses code the board hard-faults on (a native emitter), before saving it', async () => {
    await expect(
      h.run(scriptRun, { name: 'fast', code: '@micropython.native\ndef f():\n    return 1\nf()\n' }),
    ).rejects.toMatchObject({ code: 'invalid_code', message: expect.stringMatching(/hard-faults/) });
    expect(await h.python("__import__('jfs').exists('/python_scripts/fast.py')")).toBe(false);
  });

  it("reports a script's exception with its line, and what it printed before", async () => {
    const { result } = await h.run(scriptRun, { name: 'fails', code: "print('start')\nx = 1\ny = x / 0\n" });
    expect(result).toMatchObject({
      ok: false,
      output: 'start\n',
      error: { line: 3, message: 'ZeroDivisionError: divide by zero' },
      timed_out: false,
    });
  });

  it('stops a script at its time limit and keeps what it printed', async () => {
    const { result } = await h.run(scriptRun, {
      name: 'forever',
      code: "import time\nprint('tick')\nwhile True:\n    time.sleep_ms(50)\n",
      timeout_seconds: 0.5,
    });
    expect(result).toMatchObject({ ok: false, timed_out: true, output: 'tick\n' });
    // The board is usable at once.
    expect(await h.python('1 + 1')).toBe(2);
  });

  it('says when there is no such script, and refuses names that are not plain', async () => {
    await expect(h.run(scriptRun, { name: 'nothing_here' })).rejects.toMatchObject({ code: 'not_found' });
    for (const name of ['../x', '/python_scripts/a', 'a b', '9lives', '', 'x'.repeat(41)]) {
      expect(scriptRun.input.safeParse({ name, code: 'pass' }).success, name).toBe(false);
    }
  });

  it('gives the API reference whole, or the sections a topic in plain words asks for', async () => {
    expect((await h.run(apiReference)).result).toEqual({ text: API_REFERENCE });
    const { result } = await h.run(apiReference, { topic: 'gpio' });
    // A section alone opens with what it would leave a script's author to guess: no import needed.
    expect((result as { text: string }).text).toMatch(
      /^Every function below is in the `jumperless` module, imported already in script_run code and in scripts the board runs itself[^\n]*\n+## GPIO and PWM\n/,
    );
    // The scripts section answers whether a script the board's menu runs needs the import.
    const scripts = (await h.run(apiReference, { topic: 'scripts' })).result as { text: string };
    expect(scripts.text).toMatch(/menu's `\/` file runner[\s\S]*need no import/);
    expect((result as { text: string }).text).not.toMatch(/## Slots/);
    // A trial could not tell whether gpio_set makes the pin an output (it does not, on the firmware).
    expect((result as { text: string }).text).toMatch(
      /sets the level only[\s\S]*gpio_set_dir\(pin, 'OUTPUT'\)` first/,
    );
    // ...nor which sleep to call: both are named, and both run on the board's MicroPython.
    expect(scripts.text).toMatch(/time\.sleep_ms\(ms\)` or `time\.sleep\(s\)` \(seconds\)/);
    expect(await h.python("__import__('time').sleep(0.01) or __import__('time').sleep_ms(10) or 1")).toBe(1);
    // The trial's question, in its own words, finds adc_get without choosing among section names.
    const adc = (await h.run(apiReference, { topic: 'how do I read ADC channel 0 in a script' })).result as {
      text: string;
    };
    expect(adc.text).toMatch(/## Supplies and measurement\n[\s\S]*adc_get\(ch\)/);
    expect(adc.text).not.toMatch(/## (Nodes|GPIO|Slots|Files|Hazards)/);
    // The rest is named, a line each, so the next lookup is no guess either.
    expect(adc.text).toMatch(
      /Other sections[^\n]*\n- nodes: node names[^\n]*\n- connections: connect, disconnect/,
    );
    expect(adc.text).not.toMatch(/- measure:/);
    for (const [topic, heading] of [
      ['pwm', 'GPIO and PWM'],
      ['oled_print', 'LEDs and OLED'],
      ['time.sleep_ms', 'Scripts'],
      ['Slots and state', 'Slots and state'],
    ]) {
      const text = ((await h.run(apiReference, { topic })).result as { text: string }).text;
      expect(text, topic).toContain(`## ${heading}\n`);
    }
    const none = ((await h.run(apiReference, { topic: 'zebra' })).result as { text: string }).text;
    expect(none).toMatch(
      /^No section of the reference matches that topic\.\n\nOther sections[\s\S]*- hazards: /,
    );
    expect(apiReference.input.safeParse({ topic: 'x'.repeat(201) }).success).toBe(false);
  });

  it("measure section's ADC example, run as it stands, reads a node's volts", async () => {
    const { result } = await h.run(apiReference, { topic: 'measure' });
    const example = /```\n([\s\S]*?)\n *```/.exec((result as { text: string }).text)?.[1];
    expect(example).toContain('adc_get(0)');
    await h.python('nodes_clear()');
    await h.python('dac_set(1, 2.5, False)');
    await h.python('connect(DAC1, 20)');
    const code = (example ?? '').replace(/^ +/gm, '');
    const run = await h.run<{ output: string }>(scriptRun, { name: 'adc_example', code });
    expect(Number(run.result.output.trim())).toBeCloseTo(2.5, 1);
    await h.python('nodes_clear()');
    await h.python('dac_set(1, 0, False)');
  });

  it('reads the script line out of a traceback', () => {
    const tb =
      'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n  File "/python_scripts/a.py", line 7, in <module>\nValueError: bad\n';
    expect(pythonErrorAt(tb, '/python_scripts/a.py')).toEqual({ line: 7, message: 'ValueError: bad' });
  });
});
