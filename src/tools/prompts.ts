/**
 * Prompts people reach for at the bench. They name tools by group and leave the exact calls to the
 * model, which reads the tool list; they insist on measuring rather than assuming, and on the
 * limits that protect parts (spec §8, §11).
 */
import { type Prompt, userText } from '../core/resources.js';

const ROWS = Array.from({ length: 60 }, (_, i) => String(i + 1));
const completeRow = (_argument: string, value: string) =>
  ROWS.filter((row) => row.startsWith(value)).slice(0, 20);

const measureResistor: Prompt = {
  name: 'measure_resistor',
  title: 'Measure a resistor',
  description:
    'Measure the resistance of a part plugged in between two rows, and say how sure the reading is.',
  arguments: [
    { name: 'row_a', description: 'Row of one leg (1-60)', required: true },
    { name: 'row_b', description: 'Row of the other leg (1-60)', required: true },
  ],
  complete: completeRow,
  get: ({ row_a, row_b }) => ({
    messages: [
      userText(
        `A resistor is plugged into the breadboard between row ${row_a} and row ${row_b}.\n` +
          `1. Read the board state first: if either row is already on a net with a supply, say so and stop, because a powered part cannot be measured for resistance.\n` +
          `2. Use the resistance measurement tool between row ${row_a} and row ${row_b}. Report the value in ohms with the bound the tool gives (it picks its own range).\n` +
          `3. Name the nearest E12/E24 standard value the tool gives, and its colour bands.\n` +
          `4. Put the board back as it was (the measurement tool restores its own routing; check the state).`,
      ),
    ],
  }),
};

const voltageDivider: Prompt = {
  name: 'build_voltage_divider',
  title: 'Build and check a voltage divider',
  description:
    'Wire two resistors as a divider from the top rail, measure the middle, and compare with the formula.',
  arguments: [
    { name: 'supply_volts', description: 'Top rail voltage, e.g. 5 (within -8..+8 V)', required: true },
    { name: 'top_row', description: 'Row where R1 meets the supply', required: true },
    { name: 'middle_row', description: 'Row where R1 and R2 meet (the output)', required: true },
    { name: 'bottom_row', description: 'Row where R2 meets ground', required: true },
    { name: 'r1_ohms', description: 'R1 in ohms, if known' },
    { name: 'r2_ohms', description: 'R2 in ohms, if known' },
  ],
  complete: (argument, value) => (argument.endsWith('_row') ? completeRow(argument, value) : []),
  get: (args) => {
    const known =
      args.r1_ohms && args.r2_ohms
        ? `R1 = ${args.r1_ohms} ohms and R2 = ${args.r2_ohms} ohms, so expect Vout = Vin * R2 / (R1 + R2).`
        : 'Measure R1 and R2 with nothing powered before wiring the supply, so the expected output is known.';
    return {
      messages: [
        userText(
          `Build a voltage divider: R1 from row ${args.top_row} to row ${args.middle_row}, R2 from row ${args.middle_row} to row ${args.bottom_row}. ${known}\n` +
            `1. Read the board state (each change after it can be taken back with undo).\n` +
            `2. Ask me to place the resistors (light the rows and write on the OLED first), and wait for my confirmation.\n` +
            `3. Connect row ${args.top_row} to TOP_RAIL and row ${args.bottom_row} to GND, then check both connections took effect.\n` +
            `4. Set the top rail to ${args.supply_volts} V, measure the voltage at row ${args.middle_row}, and compare it with the expected value; explain any difference larger than 5 % (crossbar path resistance, ADC loading, tolerance).\n` +
            `5. Ask whether to leave the circuit powered; if not, set the rail back to 0 V.`,
        ),
      ],
    };
  },
};

const debugCircuit: Prompt = {
  name: 'debug_circuit',
  title: 'Debug a circuit step by step',
  description:
    'Find why a circuit on the breadboard does not behave, by measuring node by node from the supply.',
  arguments: [
    { name: 'symptom', description: 'What goes wrong, e.g. "the LED stays off"', required: true },
    { name: 'circuit', description: 'What the circuit should be, in a sentence or a netlist' },
  ],
  get: ({ symptom, circuit }) => ({
    messages: [
      userText(
        `My circuit misbehaves: ${symptom}.${circuit ? ` It should be: ${circuit}.` : ''}\n` +
          `Debug it one step at a time and tell me what each step showed before the next:\n` +
          `1. Read the board state and nets; draw the circuit as the board has it and point out anything that differs from the intent (missing or extra connections, a net shared by accident).\n` +
          `2. Check the supplies: read their setpoints and measure each rail where the circuit takes it.\n` +
          `3. Follow the signal from the supply: measure the voltage at each node in turn and compare with what it should be. Measure current where a part should draw some.\n` +
          `4. When a reading is wrong, say which part or connection is between the last good node and the first bad one, and ask me to check or reseat it (light its rows).\n` +
          `Never raise a voltage beyond what the parts are rated for, and never connect two supplies together.`,
      ),
    ],
  }),
};

export const prompts: readonly Prompt[] = [measureResistor, voltageDivider, debugCircuit];
