import { describe, expect, it } from 'vitest';
import { catalog } from '../tools/index.js';
import { DEFERRED_TOOLS, listModeFor, nameOnly, parseListMode } from './listModes.js';
import { firstSentence, keywordSearch, keywords, scoreEntry } from './search.js';

/** The real catalog under federated names, as a gateway with one board lists it. */
const entries = catalog
  .filter((tool) => !tool.hidden)
  .map((tool) => ({ name: `jumperless-a_${tool.name}`, title: tool.title, description: tool.description }));

describe('keyword search', () => {
  it('finds dac_set first when asked to "set a voltage"', () => {
    const hits = keywordSearch.search('set a voltage', entries, 5);
    expect(hits[0]?.name).toBe('jumperless-a_dac_set');
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  it('finds other tools by their words', () => {
    expect(keywordSearch.search('read a gpio pin', entries, 1)[0]?.name).toBe('jumperless-a_gpio_get');
    expect(keywordSearch.search('measure current', entries, 1)[0]?.name).toBe('jumperless-a_current_measure');
    expect(keywordSearch.search('save slot', entries, 1)[0]?.name).toBe('jumperless-a_slot_save');
  });

  it('scores from 0 to 1: every word in the name is 1, no word found is 0 and not a hit', () => {
    const entry = { name: 'dac_set', title: 'Set a supply voltage', description: 'Set DAC0 to a voltage.' };
    expect(scoreEntry(keywords('dac set'), entry)).toBe(1);
    expect(scoreEntry(keywords('banana'), entry)).toBe(0);
    expect(scoreEntry(keywords('supply'), entry)).toBe(0.85);
    expect(scoreEntry(keywords('volts'), entry)).toBe(0.638); // "volt" shares a stem with the title's "voltage"
    expect(keywordSearch.search('banana', [entry], 10)).toEqual([]);
    expect(keywordSearch.search('the a of', [entry], 10)).toEqual([]);
    for (const hit of keywordSearch.search('set the rail voltage and read it', entries, 50)) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.score).toBeLessThanOrEqual(1);
    }
  });

  it('returns at most limit hits, with one-sentence descriptions', () => {
    const hits = keywordSearch.search('gpio', entries, 3);
    expect(hits).toHaveLength(3);
    for (const hit of hits) expect(hit.description).not.toMatch(/\.\s+\S/);
  });

  it('survives hostile queries', () => {
    for (const query of ['', ' ', '\u0000\uffff', 'a'.repeat(10_000), '((((', '🙂 volt']) {
      expect(() => keywordSearch.search(query, entries, 10)).not.toThrow();
    }
  });
});

describe('first sentence', () => {
  it('cuts at the first sentence end, or the line, or 160 characters', () => {
    expect(firstSentence('Set DAC0 (0.5 V steps). Drives hardware.')).toBe('Set DAC0 (0.5 V steps).');
    expect(firstSentence('-8..+8 V is the range. More.')).toBe('-8..+8 V is the range.');
    expect(firstSentence('Light rows, e.g. where a part goes. More.')).toBe(
      'Light rows, e.g. where a part goes.',
    );
    expect(firstSentence('One line\nsecond')).toBe('One line');
    expect(firstSentence('x'.repeat(300))).toHaveLength(160);
  });
});

describe('list modes', () => {
  it('the operator decides; else x-deferred-tools asks for discovery; else full', () => {
    expect(listModeFor(undefined, undefined)).toBe('full');
    expect(listModeFor(undefined, {})).toBe('full');
    expect(listModeFor(undefined, { [DEFERRED_TOOLS]: {} })).toBe('discovery');
    expect(listModeFor(undefined, { [DEFERRED_TOOLS]: false })).toBe('full');
    expect(listModeFor('names', { [DEFERRED_TOOLS]: {} })).toBe('names');
    expect(listModeFor('full', { [DEFERRED_TOOLS]: {} })).toBe('full');
  });

  it('parses modes with a message that says where', () => {
    expect(parseListMode('discovery', '--list-mode')).toBe('discovery');
    expect(() => parseListMode('all', '--list-mode')).toThrow(
      /--list-mode: "all" is not a list mode \(use full, names, discovery\)/,
    );
  });

  it('names mode keeps the name and one line, with the emptiest schema', () => {
    expect(nameOnly({ name: 'a_b', description: 'Does b. Then c.' })).toEqual({
      name: 'a_b',
      description: 'Does b.',
      inputSchema: { type: 'object' },
    });
  });
});
