/**
 * What tools/list costs a model, checked on every run (sizes, not times; bench/catalog.ts prints
 * the same figures with tokens). An MCP client sends the whole list to the model in every
 * conversation, so a tool that grows its description or schema past these budgets fails here.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../tools/index.js';
import { CAPABILITIES, type Capability } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import type { ListMode } from './listModes.js';
import { listTools } from './listTools.js';
import { ToolSubsystem } from './toolSubsystem.js';

/**
 * Bytes of JSON, as the list goes over the wire (issue 13's figures; the full list grew by 500 in
 * December 2026 for three tools a task needed: undo, script_run and board_lease, 1.1 KB together).
 */
const BUDGET = {
  full: 20_500,
  names: 6_000,
  discovery: 1_500,
  tool: 600,
} as const;

const operator = { granted: new Set<Capability>(CAPABILITIES) };
const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const list = (mode: ListMode) => listTools(dispatcher, { caller: operator, mode });

describe('tools/list budget (one board, every tool, the operator)', () => {
  it.each(['full', 'names', 'discovery'] as const)('%s mode fits its budget', (mode) => {
    const answer = list(mode);
    expect(bytes(answer), `${mode}: ${answer.tools.length} tools`).toBeLessThanOrEqual(BUDGET[mode]);
  });

  it('lists every tool in full with its complete input schema', () => {
    const listed = list('full').tools;
    expect(listed.map((tool) => tool.name)).toEqual(catalog.map((tool) => tool.name));
    for (const tool of listed) expect(tool.inputSchema.type, tool.name).toBe('object');
  });

  it('keeps every tool within its budget', () => {
    const over = list('full')
      .tools.map((tool) => ({ name: tool.name, bytes: bytes(tool) }))
      .filter((tool) => tool.bytes > BUDGET.tool);
    expect(over).toEqual([]);
  });

  it('keeps ranges and units in the schema, where a client can enforce them', () => {
    const schema = (name: string) => list('full').tools.find((tool) => tool.name === name)?.inputSchema;
    expect(schema('dac_set')?.properties).toMatchObject({ volts: { minimum: -8, maximum: 8 } });
    expect(schema('pwm_start')?.properties).toMatchObject({
      duty_cycle: { minimum: 0, maximum: 1 },
      frequency_hz: { minimum: 0.01 },
    });
    expect(schema('current_measure')?.properties).toMatchObject({
      window_ms: { minimum: 0, maximum: 10_000 },
    });
    expect(schema('script_run')?.properties).toMatchObject({
      timeout_seconds: { minimum: 0.1, maximum: 60 },
    });
    expect(schema('gpio_config')?.properties).toMatchObject({ pin: { minimum: 1, maximum: 10 } });
    expect(schema('wavegen_configure')?.properties).toMatchObject({
      offset_volts: { minimum: -8, maximum: 8 },
    });
    expect(schema('voltage_sweep')?.properties).toMatchObject({
      start_volts: { minimum: -8, maximum: 8 },
      stop_volts: { minimum: -8, maximum: 8 },
    });
    // DAC0 powers the probe: the sweep's schema leaves it out rather than warning about it.
    expect(schema('voltage_sweep')?.properties).toMatchObject({
      supply: { enum: ['DAC1', 'TOP_RAIL', 'BOTTOM_RAIL'] },
    });
    expect(schema('state_set')).toMatchObject({ additionalProperties: false, required: ['nets'] });
    const text = JSON.stringify(list('full'));
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    // The warnings that prevent damage stay in the descriptions.
    const description = (name: string) => list('full').tools.find((tool) => tool.name === name)?.description;
    expect(description('dac_set')).toMatch(/probe/);
    expect(description('connect')).toMatch(/[Ss]horts/);
    expect(description('gpio_config')).toMatch(/refused/i);
    expect(description('disconnect')).toMatch(/BUFFER_IN-DAC0 cuts the probe's power/);
    expect(description('nodes_clear')).toMatch(/BUFFER_IN-DAC0/);
    expect(description('state_set')).toMatch(/shorts/);
    expect(description('state_set')).toMatch(/dac_set/);
    expect(description('resistance_measure')).toMatch(/DAC1 \(10 mA max\)/);
    expect(description('wavegen_configure')).toMatch(/offset \+- amplitude\/2/);
    expect(description('pwm_start')).toMatch(/[Rr]efused onto a driven net/);
    expect(description('python_exec')).toMatch(/drive supplies, rewire, delete files/);
    expect(description('file_write')).toMatch(/\/config\.txt/);
    expect(description('voltage_measure')).toMatch(/-8\.9\.\.\+8\.9 V/);
  });

  it('answers in the list what the second model trial guessed at (issue 20)', () => {
    const tool = (name: string) => list('full').tools.find((t) => t.name === name);
    expect(tool('voltage_measure')?.inputSchema.properties).toMatchObject({
      samples: { default: 4, description: expect.stringMatching(/^Averaged/) },
    });
    expect(tool('gpio_config')?.description).toMatch(/reads back; any order with connect/);
    expect(tool('oled_print')?.description).toMatch(/refused if wired/);
    expect(tool('script_run')?.description).toMatch(/\.py optional[\s\S]*jumperless/);
  });

  it('says which one read answers "what is wired on my board right now?" (the third trial guessed among three)', () => {
    const description = (name: string) => list('full').tools.find((t) => t.name === name)?.description;
    expect(description('state_get')).toMatch(/^What's on the board now, in one call/);
    expect(description('nets_list')).toMatch(/The whole board: state_get\.$/);
    expect(description('bridges_list')).toMatch(/the pairs to disconnect\. The whole board: state_get\.$/);
  });
});
