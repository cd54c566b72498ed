/**
 * The text of `help([section])` and `nodes_help()` (spec §6.9): the Jumperless help shadows Python's
 * built-in one. Titles, section headings and the overview follow the firmware (modjumperless.c:
 * 4226-4598); the section bodies are our own wording, except MISC (a short signature list).
 */

export const HELP_SECTIONS = [
  'DAC',
  'ADC',
  'GPIO',
  'PWM',
  'WAVEGEN',
  'INA',
  'NODES',
  'NETS',
  'SLOTS',
  'OLED',
  'PROBE',
  'CLICKWHEEL',
  'STATUS',
  'FILESYSTEM',
  'MISC',
  'EXAMPLES',
] as const;

const SECTION_TEXT: Record<(typeof HELP_SECTIONS)[number], string> = {
  DAC: `DAC (Digital-to-Analog Converter):

   dac_set(channel, volts, save=True) - drive an output (alias set_dac)
   dac_get(channel)                   - the stored setpoint (alias get_dac)

      channel: 0 or DAC0, 1 or DAC1, 2 or TOP_RAIL, 3 or BOTTOM_RAIL
      volts:   stay within -8.0 .. +8.0 V
      save=False changes the output but leaves the saved setpoint alone
`,
  ADC: `ADC (Analog-to-Digital Converter):

   adc_get(channel)                   - volts on an ADC input (alias get_adc)

      channel: 0-3 (+-8 V range); route the ADC first, e.g. connect(ADC0, 15)
`,
  GPIO: `GPIO:

   gpio_set(pin, value)               - drive a pin HIGH / LOW / FLOATING
   gpio_get(pin)                      - read a pin: HIGH, LOW or FLOATING
   gpio_set_dir(pin, direction)       - OUTPUT / INPUT (True = output; a plain int 0 = output)
   gpio_get_dir(pin)                  - INPUT or OUTPUT
   gpio_set_pull(pin, pull)           - PULLUP (1), PULLDOWN (-1), NO_PULL (0), BUS_KEEPER (2)
   gpio_get_pull(pin)
   gpio_set_read_floating(pin, on)    - tell a floating pin apart with a weak pull test
   gpio_claim_pin(pin) / gpio_release_pin(pin) / gpio_release_all_pins()

      pin: 1-8 = GPIO_1..GPIO_8, 9 = UART TX, 10 = UART RX
      aliases: set_gpio, get_gpio, set_gpio_dir, get_gpio_dir, set_gpio_pull, get_gpio_pull
`,
  PWM: `PWM (Pulse Width Modulation):

   pwm(pin, frequency=1.0, duty=0.5)  - start PWM on GPIO 1-8 (alias set_pwm)
   pwm_set_duty_cycle(pin, duty)      - 0.0 .. 1.0
   pwm_set_frequency(pin, hz)         - 0.001 Hz .. 62.5 MHz (slow PWM below 10 Hz)
   pwm_stop(pin)                      - alias stop_pwm
`,
  WAVEGEN: `WaveGen (Waveform Generator):

   wavegen_set_output(DAC1)           - DAC0, DAC1, TOP_RAIL or BOTTOM_RAIL
   wavegen_set_wave(SINE)             - SINE, TRIANGLE, SAWTOOTH (RAMP), SQUARE
   wavegen_set_freq(hz)               - 0.0001 .. 10000 Hz
   wavegen_set_amplitude(vpp)         - 0 .. 16 V peak to peak
   wavegen_set_offset(volts)
   wavegen_set_sweep(start_hz, end_hz, seconds)
   wavegen_start() / wavegen_stop() / wavegen_is_running()
   wavegen_get_output/freq/wave/amplitude/offset()
`,
  INA: `INA (Current/Power Monitor):

   ina_get_current(sensor)            - amps
   ina_get_voltage(sensor)            - volts (the bus voltage)
   ina_get_bus_voltage(sensor)        - volts
   ina_get_power(sensor)              - watts

      sensor 0 measures the ISENSE_PLUS -> ISENSE_MINUS shunt; sensor 1 the probe supply
      aliases: get_current, get_voltage, get_bus_voltage, get_power, get_ina_*
`,
  NODES: `Node Connections:

   connect(a, b, duplicates=-1)       - add a bridge between two nodes
   disconnect(a, b)                   - remove it; disconnect(a, -1) clears everything on a
   is_connected(a, b)                 - CONNECTED only for a direct bridge a-b
   nodes_clear()                      - remove every bridge
   fast_connect(a, b) / fast_disconnect(a, b)
   node(name)                         - a node object from a name or number
   undo() / redo()                    - step through the change history

      nodes: 1-60, D0-D13, A0-A7, GPIO_1-GPIO_8, TOP_RAIL, GND, DAC0, ADC0 ... (see nodes_help())
`,
  NETS: `Net Information:

   get_num_nets() / get_num_bridges()
   get_net_name(n) / set_net_name(n, name)
   get_net_color(n) / get_net_color_name(n)
   set_net_color(n, color)            - "red", "#FF0000", 0xFF0000 or (r, g, b)
   set_net_color_hsv(n, h, s, v)
   get_net_nodes(n)                   - "GND,21,TOP_R"
   get_net_info(n) / get_all_nets()
   get_bridge(i) / get_num_paths() / get_path_info(i) / get_all_paths()
`,
  SLOTS: `Slot Management:

   nodes_save(slot=-1)                - write the connections to a slot file
   switch_slot(slot)                  - 0-7; returns the previous slot
   CURRENT_SLOT()                     - the active slot
   nodes_discard()                    - back to the state the p REPL saved on entry
   nodes_has_changes()
   get_state() / set_state(json)      - the whole board as JSON
   context_get() / context_toggle()   - "global" or "python" connection context
`,
  OLED: `OLED Display:

   oled_print(*values, sep=' ', end='', size=-1)
                                      - size 0 small scrolling, 1 normal, 2 large
   oled_clear(show=True) / oled_show()
   oled_connect() / oled_disconnect()
   oled_set_text_size(n) / oled_get_text_size()
   oled_copy_print(True)              - mirror print() on the display
   oled_get_fonts() / oled_set_font(name) / oled_get_current_font()
   oled_set_pixel(x, y, color) / oled_get_pixel(x, y)
   oled_get_framebuffer() / oled_set_framebuffer(data) / oled_get_framebuffer_size()
   oled_load_bitmap(path) / oled_display_bitmap(x, y, w, h, data=None)
   oled_show_bitmap_file(path, x, y)

OLED Layout (retained screens, live-updating):

   s = oled_screen()                  - a screen handle 1-8 (0: all 8 in use)
   e = oled_add_text(s, text, x=0, y=0, font=None, size=8, halign=-1, valign=-1, z=0)
   e = oled_add_shape(s, kind=1, x=0, y=0, w=0, h=0, filled=0, z=0)
                                      - kind 0 line, 1 rectangle, 2 filled rectangle
   oled_set(e, prop, value)           - text, font, x, y, w, h, z, size, visible, ...
   oled_set_var(name, value)          - fills {name} in texts
   oled_screen_show(s, persist=False) / oled_screen_hide()
   oled_screen_clear(s) / oled_screen_free(s) / oled_screen_reset()
   oled_screen_save(s, name) / oled_screen_load(name)
                                      - /screens/<name>.json

      texts may hold {adc:N} {gpio:N} {dac:N} {uptime} {freemem} and pushed names
`,
  PROBE: `Probe Functions:

   probe_read(blocking=True)          - wait for a pad touch; returns a ProbePad
   probe_read_nonblocking()           - NO_PAD when nothing is touched
   probe_button(blocking=True, consume=False)
                                      - CONNECT, REMOVE or NONE
   check_button()                     - the button state right now
   get_switch_position() / check_switch_position()
                                      - SWITCH_MEASURE, SWITCH_SELECT or SWITCH_UNKNOWN
   probe_autoconnect([on])

      aliases: read_probe, probe_wait, wait_probe, probe_touch, wait_touch,
               get_button, button_read, read_button, button_check
      blocking waits end with Ctrl-C
`,
  CLICKWHEEL: `Clickwheel (Rotary Encoder):

   clickwheel_get_position() / clickwheel_reset_position()
                                      - raw encoder counts, not detents
   clickwheel_get_direction(consume=True)
                                      - CLICKWHEEL_NONE, CLICKWHEEL_UP, CLICKWHEEL_DOWN
   clickwheel_get_button()            - CLICKWHEEL_IDLE, _PRESSED, _HELD, _RELEASED,
                                        _DOUBLECLICKED; 5 long hold, 6 medium hold
   clickwheel_up() / clickwheel_down() / clickwheel_press()
                                      - pretend the wheel turned one step or was clicked
`,
  STATUS: `Status:

   print_bridges() / print_paths() / print_nets()
   print_crossbars() / print_chip_status()

      they print on the main serial port, not here
`,
  FILESYSTEM: `Filesystem:

   f = jfs.open(path, mode='r')       - modes r w a r+ w+ a+, add b for bytes
   f.read([n]) / f.write(data) / f.print(*values)
   f.seek(offset, whence) / f.tell() / f.size() / f.available()
   f.name() / f.flush() / f.close()   - or use "with jfs.open(...) as f:"
   jfs.exists(p) / jfs.listdir(p) / jfs.mkdir(p) / jfs.rmdir(p)
   jfs.remove(p) / jfs.rename(a, b) / jfs.stat(p) / jfs.info()
   fs_exists(p) / fs_listdir(p) / fs_read(p) / fs_write(p, text) / fs_cwd()

      open() and os work on the same files
`,
  // The one section given as the firmware prints it: a short list of signatures (probe ui.help_sections).
  MISC: `Misc:

   arduino_reset()                  - Reset Arduino
   run_app(appName)                 - Run built-in app
   pause_core2(pause)               - Pause/unpause Core2 (True/False)
   send_raw(chip, x, y, set)        - Send raw data to crossbar chip
   force_service(name)              - Force run a specific service (e.g., "ProbeButton")
   force_service_by_index(idx)      - Force run service by index (faster)
   get_service_index(name)          - Get service index by name (cache for fast calls)
`,
  EXAMPLES: `Examples (all functions available globally):

   connect(1, 30)                              # bridge rows 1 and 30
   connect(D13, TOP_RAIL)                      # Nano pin to the top rail
   dac_set(TOP_RAIL, 3.3)                      # top rail to 3.3 V
   connect(ADC0, 15); print(adc_get(0))        # measure row 15
   gpio_set_dir(1, OUTPUT); gpio_set(1, HIGH)  # drive GPIO 1
   oled_print("Hello")                         # say hello on the display
   overlay_set("bar", 1, 1, 1, 10, [0x200000] * 10)
   pad = probe_read()                          # wait for a touch
   with jfs.open("/notes.txt", "w") as f: f.write("hi")
`,
};

/** One section; `undefined` when the name is not a section (ALL and ENCODER aside). */
export function helpSection(name: string): string | undefined {
  const key = name.toUpperCase() === 'ENCODER' ? 'CLICKWHEEL' : name.toUpperCase();
  return (SECTION_TEXT as Record<string, string>)[key];
}

/** What each line of the `help()` overview calls a section (the firmware's short labels). */
const INDEX_LABELS: Record<(typeof HELP_SECTIONS)[number], string> = {
  DAC: 'DAC functions',
  ADC: 'ADC functions',
  GPIO: 'GPIO functions',
  PWM: 'PWM functions',
  WAVEGEN: 'Waveform generator',
  INA: 'INA current/power monitor',
  NODES: 'Node connections',
  NETS: 'Net info (names, colors)',
  SLOTS: 'Slot management',
  OLED: 'OLED display',
  PROBE: 'Probe and button functions',
  CLICKWHEEL: 'Clickwheel (rotary encoder) functions',
  STATUS: 'Status and debug functions',
  FILESYSTEM: 'Filesystem functions',
  MISC: 'Miscellaneous functions',
  EXAMPLES: 'Usage examples',
};

/** The title `help()` starts with (modjumperless.c:4282). */
export const HELP_TITLE = 'Jumperless Native MicroPython Module\n';

/** The overview lines printed by `help()` after the title, one per section (modjumperless.c:4285-4319). */
export function helpIndexLines(): string[] {
  const all = `${'  help() or help("all")'.padEnd(28)}- Show all functions\n`;
  const lines = HELP_SECTIONS.map((s) => `${`  help("${s}")`.padEnd(28)}- ${INDEX_LABELS[s]}\n`);
  return ['Available help sections:\n\n', all, ...lines.slice(0, -1), `${lines.at(-1)}\n`];
}

export const UNKNOWN_SECTION = (name: string): string =>
  `Unknown help section: ${name}\nUse help() to see available sections.\n\n`;

/** `nodes_help()`: the firmware's heading (modjumperless.c:4228), our own reference below it. */
export const NODES_HELP = `Jumperless Node Reference
========================

Kinds of node:
  Breadboard rows  1-60 (1-30 top half, 31-60 bottom half)
  Nano header      D0-D13, A0-A7 (also NANO_D13 ...), RESET, AREF
  Routable GPIO    GPIO_1-GPIO_8 (GP1 ...), UART_TX, UART_RX
  Supplies         TOP_RAIL, BOTTOM_RAIL, GND
  Analog out       DAC0, DAC1
  Analog in        ADC0-ADC4, PROBE
  Current sense    ISENSE_PLUS, ISENSE_MINUS
  Buffer           BUFFER_IN, BUFFER_OUT

Three ways to name one:
  connect(12, 40)                  # numbers for breadboard rows
  connect("d13", "top_rail")       # strings, any case
  connect(D13, TOP_RAIL)           # the module's constants

  n = node("D13")                  # a node object; print(n) shows NANO_D13
  connect(n, GND)

Many nodes have several names: TOP_RAIL = T_RAIL = TOP_R, GPIO_1 = GP1,
DAC0 = DAC_0, UART_TX = TX. Strings ignore case; constants do not.
`;
