/**
 * Fidelity of the `jumperless` module as Python sees it, through the real MicroPython VM of the
 * simulator (spec §6, §7, §12): print names, types, error strings, silent failures, forbidden
 * pairs, net renumbering, the get_state shape, printers on the main port, and the circuits of
 * issue 2 measured from Python.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wire } from '../../../test/support/simWire.js';
import { SimBoard, type SimBoardOptions } from '../simBoard.js';

interface Session {
  board: SimBoard;
  repl: Wire;
  main: Wire;
  /** Runs code in the raw REPL; returns stdout, or throws with the traceback. */
  run(code: string): Promise<string>;
  /** `repr()` of each expression's value, or `ExcType: message` when it raises. */
  outcomes(exprs: readonly string[]): Promise<string[]>;
}

async function open(options: SimBoardOptions = {}): Promise<Session> {
  const board = await SimBoard.start(options);
  const repl = new Wire(board.port('repl'));
  const main = new Wire(board.port('main'));
  repl.write('\r\x03\x03\x01');
  await repl.until('raw REPL; CTRL-B to exit\r\n>');
  const run = async (code: string): Promise<string> => {
    const [stdout, stderr] = await repl.exec(code);
    if (stderr) throw new Error(`Python raised:\n${stderr}`);
    return stdout;
  };
  const outcomes = async (exprs: readonly string[]): Promise<string[]> => {
    const code = [
      `for _e in ${JSON.stringify(exprs)}:`,
      '    try:',
      '        print(repr(eval(_e)))',
      '    except Exception as _x:',
      "        print(type(_x).__name__ + ': ' + str(_x))",
    ].join('\n');
    return (await run(code)).trimEnd().split('\n');
  };
  return { board, repl, main, run, outcomes };
}

const DIVIDER = JSON.stringify({
  parts: [
    { type: 'resistor', id: 'R1', between: [10, 20], ohms: '1k' },
    { type: 'resistor', id: 'R2', between: [20, 30], ohms: '1k' },
    { type: 'resistor', id: 'RL', between: [40, 50], ohms: '1k' },
  ],
});

describe('jumperless module in the real VM', () => {
  let s: Session;
  beforeAll(async () => {
    s = await open({ partsFileText: DIVIDER });
  });
  afterAll(async () => {
    await s.board.stop();
  });

  it('prints nodes by the first alias of the firmware table (§6.1)', async () => {
    expect(
      await s.run('print(D13, NANO_D13, GPIO_1, GP1, UART_TX, UART_RX, ADC0, BUFFER_IN, T_RAIL, GND)'),
    ).toBe(
      'NANO_D13 NANO_D13 RP_GPIO_1 RP_GPIO_1 RP_UART_TX RP_UART_RX ADC0 ROUTABLE_BUFFER_IN TOP_RAIL GND\n',
    );
    expect(await s.run('print([DAC0, node("d13"), node(5), node("isense_minus")], repr(D13))')).toBe(
      '[DAC0, NANO_D13, 5, ISENSE_MINUS] NANO_D13\n',
    );
  });

  it('gives the custom types their print, truth and int() (§6.1)', async () => {
    expect(
      await s.outcomes([
        'HIGH',
        'bool(HIGH)',
        'bool(FLOATING)',
        'int(FLOATING)',
        'int(INPUT)',
        'int(OUTPUT)',
        'bool(OUTPUT)',
        'gpio_get_pull(1)',
        'int(gpio_get_pull(1))',
        'is_connected(1, 2)',
        'int(is_connected(1, 2))',
        'HIGH == HIGH',
        'HIGH == 1',
        'OUTPUT == 0',
        'OUTPUT == True',
        'type(GND).__name__',
        'hash(HIGH)',
      ]),
    ).toEqual([
      'HIGH',
      'True',
      'False',
      '2',
      '1',
      '0',
      'True',
      'PULLDOWN',
      '-1',
      'DISCONNECTED',
      '0',
      'True',
      // Across types equality is identity on the board (MP_TYPE_FLAG_NONE, py/obj.c:268-300).
      'False',
      'False',
      'False',
      "'node'",
      "TypeError: unsupported type for __hash__: 'GPIOState'",
    ]);
  });

  it('orders and counts nodes like ints, but equals only nodes; arithmetic gives a plain int', async () => {
    expect(
      await s.outcomes([
        'GND == 100',
        '100 == GND',
        'GND == node(100)',
        'D13 < 90',
        'D13 + 1',
        'type(D13 - 1).__name__',
        'bool(node(0))',
      ]),
    ).toEqual(['False', 'False', 'True', 'True', '84', "'int'", 'False']);
  });

  it('raises the firmware error strings (§6)', async () => {
    expect(
      await s.outcomes([
        'node("nowhere")',
        'node(1.5)',
        'connect([1], 2)',
        'dac_set(9, 1.0)',
        'adc_get(4)',
        'ina_get_current(2)',
        'gpio_set(11, 1)',
        'gpio_set(1, "maybe")',
        'gpio_set_dir(1, "sideways")',
        'pwm(9)',
        'pwm(1, 0.0)',
        'pwm(1, 10, 1.5)',
        'wavegen_set_output(GND)',
        'wavegen_set_wave(ARBITRARY)',
        'wavegen_set_wave(9)',
        'wavegen_set_wave("noise")',
        'switch_slot(8)',
        'set_net_color(6, 1.5)',
        'set_net_color(6, 1, 2)',
        'dac_set(0, 3.3, save=False)',
        'gpio_get()',
      ]),
    ).toEqual([
      'ValueError: Unknown node name',
      'TypeError: Node must be created from string, int, or another node',
      'TypeError: Expected node, int, or string',
      'ValueError: Invalid DAC channel or node. Use 0-3, DAC0, DAC1, TOP_RAIL, or BOTTOM_RAIL',
      'ValueError: ADC channel must be 0-3',
      'ValueError: INA sensor must be 0 or 1',
      'ValueError: GPIO pin must be 1-10, GPIO_1-GPIO_8, GPIO_20-GPIO_27, or UART_TX/UART_RX',
      "ValueError: GPIO state string must be 'HIGH', 'LOW', or 'FLOATING'",
      "ValueError: Direction string must be 'INPUT' or 'OUTPUT'",
      'ValueError: GPIO pin must be 1-8 or GPIO_1-GPIO_8',
      'ValueError: PWM frequency must be 0.001Hz to 62.5MHz',
      'ValueError: PWM duty cycle must be 0.0 to 1.0',
      'ValueError: Invalid output. Use DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL',
      'NotImplementedError: ARBITRARY waveform not implemented yet',
      'ValueError: Waveform must be 0-4',
      'ValueError: Unknown waveform',
      'ValueError: Invalid slot number',
      'ValueError: Color must be string name, hex integer, or (r,g,b) tuple',
      'ValueError: Invalid arguments for set_net_color',
      "TypeError: function doesn't take keyword arguments",
      'TypeError: function takes 1 positional arguments but 0 were given',
    ]);
  });

  it('keeps connect silent on invalid nodes, same nodes, forbidden pairs (§6.3, §8.3)', async () => {
    await s.run('nodes_clear()');
    expect(
      await s.outcomes([
        'connect(0, 5)',
        'connect(61, 5)',
        'connect(5, 5)',
        'connect(GND, TOP_RAIL)',
        'connect(GPIO_1, TOP_RAIL)',
        'connect(DAC1, GND)',
        'connect(5, 84)',
        'connect(5, ADC7)',
        'get_num_bridges()',
      ]),
    ).toEqual(['None', 'None', 'None', 'None', 'None', 'None', 'None', 'None', '0']);
  });

  it('stores but does not route a bridge between two special nets (§8.3)', async () => {
    await s.run('nodes_clear(); connect(5, TOP_RAIL); connect(6, GND); connect(5, 6)');
    // It joins no net, so it has no path (NetManager.cpp:456-465).
    expect(await s.outcomes(['is_connected(5, 6)', 'get_bridge(2)', 'get_path_between(5, 6)'])).toEqual([
      'CONNECTED',
      '(5, 6, 2)',
      'None',
    ]);
  });

  it('renumbers user nets from 6 as they merge and split (§6.9)', async () => {
    await s.run('nodes_clear(); connect(1, 2); connect(3, 4); connect(5, 6)');
    expect(await s.outcomes(['get_num_nets()', 'get_net_nodes(8)'])).toEqual(['9', "'5,6'"]);
    await s.run('connect(2, 3)');
    expect(await s.outcomes(['get_num_nets()', 'get_net_nodes(6)', 'get_net_nodes(7)'])).toEqual([
      '8',
      "'1,2,3,4'",
      "'5,6'",
    ]);
  });

  it('returns get_state as the §7 JSON document (5.7.11: no nets of fewer than two nodes)', async () => {
    await s.run('nodes_clear(); connect(TOP_RAIL, 23); connect(GPIO_1, 12); connect(12, 13)');
    const out = await s.run(
      [
        'import json',
        's = json.loads(get_state())',
        'print(sorted(s.keys()), sorted(s["power"].items()))',
        'n = [x for x in s["nets"] if x["index"] == 6][0]',
        'print([x["index"] for x in s["nets"]], n["name"], n["nodes"], n["special"], n["logic"])',
        'print(len(s["gpio"]), s["gpio"][0]["net"], s["gpio"][0]["reading"], s["gpio"][8]["pin"])',
        'print(repr(get_state()[:24]))',
      ].join('\n'),
    );
    expect(out.split('\n')).toEqual([
      "['gpio', 'nets', 'overlays', 'power'] [('bottom_rail', 0.0), ('dac0', 3.33), ('dac1', 0.0), ('top_rail', 0.0)]",
      "[2, 6] Net 6 ['GP_1', '12', '13'] GPIO 2",
      '10 6 float TX',
      '\'{\\n  "power": {\\n    "top_\'',
      '',
    ]);
  });

  it('prints paths on the main port, not on stdout, and returns', async () => {
    // print_nets() is left out: like the board, it blocks until a probe button press (nets.ts).
    await s.run('nodes_clear(); connect(38, 44)');
    s.main.text = '';
    expect(await s.run('print_bridges(); print("done")')).toBe('done\n');
    const main = await s.main.until('pathType');
    expect(main).toContain('38');
    expect(main).toContain('numberOfPaths: 3');
  });

  it('prints set_state errors on the main port and returns -1', async () => {
    s.main.text = '';
    expect(await s.outcomes(['set_state("{broken")', 'set_state(5)'])).toEqual([
      '-1',
      "TypeError: can't convert 'int' object to str implicitly",
    ]);
    expect(await s.main.until('set_state error: ')).toContain('set_state error: Invalid JSON');
  });

  it('binds CURRENT_SLOT to a function and switch_slot returns the previous slot (§6.4)', async () => {
    expect(
      await s.outcomes([
        'callable(CURRENT_SLOT)',
        'CURRENT_SLOT()',
        'switch_slot(2)',
        'switch_slot(2)',
        'switch_slot(0)',
      ]),
    ).toEqual(['True', '0', '0', '2', '2']);
  });

  it('measures the middle of two 1k resistors from TOP_RAIL at 5 V as 2.5 V +-1% through ADC0', async () => {
    await s.run(
      'nodes_clear(); dac_set(TOP_RAIL, 5.0); connect(TOP_RAIL, 10); connect(30, GND); connect(ADC0, 20)',
    );
    const v = Number(await s.run('print(adc_get(0))'));
    expect(Math.abs(v - 2.5) / 2.5).toBeLessThan(0.01);
  });

  it('measures a 1k load through ISENSE at 3.3 V as about 3.3 mA, less the path resistance', async () => {
    await s.run(
      'nodes_clear(); dac_set(TOP_RAIL, 3.3); connect(TOP_RAIL, ISENSE_PLUS); connect(ISENSE_MINUS, 40); connect(50, GND)',
    );
    const [amps, bus] = (await s.run('print(ina_get_current(0), ina_get_bus_voltage(0))'))
      .trim()
      .split(' ')
      .map(Number);
    expect(amps).toBeGreaterThan(0.0028);
    expect(amps).toBeLessThan(0.0033);
    expect(bus).toBeGreaterThan(3.1);
  });

  it('keeps dac_get on the stored setpoint when save is False (§6.5)', async () => {
    expect(
      await s.outcomes(['dac_set(DAC1, 2.0)', 'dac_set(DAC1, 4.0, False)', 'dac_get(DAC1)', 'get_dac(1)']),
    ).toEqual(['None', 'None', '2.0', '2.0']);
  });
});

describe('jumperless module on a fresh board', () => {
  let s: Session;
  beforeAll(async () => {
    s = await open();
  });
  afterAll(async () => {
    await s.board.stop();
  });

  it('starts with DAC0 at 3.33 V feeding the probe through BUFFER_IN, rails at 0 V', async () => {
    expect(
      await s.outcomes([
        'dac_get(DAC0)',
        'dac_get(TOP_RAIL)',
        'dac_get(BOTTOM_RAIL)',
        'get_bridge(0)',
        'get_net_nodes(4)',
        'get_num_nets()',
        'nodes_has_changes()',
        'context_get()',
        'pwm(1)',
        'wavegen_get_wave() == SINE',
      ]),
    ).toEqual([
      '3.33',
      '0.0',
      '0.0',
      '(139, 106, 0)',
      "'DAC_0,BUF_IN'",
      '6',
      'False',
      "'global'",
      'None',
      'True',
    ]);
  });

  it('keeps the hardware state across a soft reset, which only rebuilds Python (§3.2)', async () => {
    await s.run('connect(1, 2); x = 5; dac_set(TOP_RAIL, 4.5, False)');
    s.repl.write('\x04');
    await s.repl.until('soft reboot\r\nraw REPL; CTRL-B to exit\r\n>');
    await s.run('connect(ADC0, TOP_RAIL)');
    const [connected, hasX, setpoint, volts] = (
      await s.run('print(is_connected(1, 2), "x" in globals(), dac_get(2), adc_get(0))')
    )
      .trim()
      .split(' ');
    expect([connected, hasX, setpoint]).toEqual(['CONNECTED', 'False', '0.0']);
    expect(Number(volts)).toBeCloseTo(4.5, 1);
    await s.run('nodes_clear(); dac_set(TOP_RAIL, 0)');
  });

  it('saves a slot to the flash as YAML', async () => {
    const out = await s.run('connect(1, 2)\nprint(nodes_save(4))\nprint(open("/slots/slot4.yaml").read())');
    expect(out).toMatch(/^4\nversion: 2\nsourceOfTruth: bridges\n/);
    expect(out).toContain('{n1: 1, n2: 2, dup: 2}');
  });
});
