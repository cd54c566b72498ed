/**
 * A 3x5 pixel font for labels in pictures (board picture, plots): digits, capitals and a few
 * symbols. Lower case draws as upper case; anything else as `?`. Each glyph is five rows of three
 * pixels, top to bottom, `#` lit.
 */
const GLYPHS: Readonly<Record<string, string>> = {
  ' ': '... ... ... ... ...',
  '0': '### #.# #.# #.# ###',
  '1': '.#. ##. .#. .#. ###',
  '2': '### ..# ### #.. ###',
  '3': '### ..# .## ..# ###',
  '4': '#.# #.# ### ..# ..#',
  '5': '### #.. ### ..# ###',
  '6': '### #.. ### #.# ###',
  '7': '### ..# .#. .#. .#.',
  '8': '### #.# ### #.# ###',
  '9': '### #.# ### ..# ###',
  A: '.#. #.# ### #.# #.#',
  B: '##. #.# ##. #.# ##.',
  C: '.## #.. #.. #.. .##',
  D: '##. #.# #.# #.# ##.',
  E: '### #.. ##. #.. ###',
  F: '### #.. ##. #.. #..',
  G: '.## #.. #.# #.# .##',
  H: '#.# #.# ### #.# #.#',
  I: '### .#. .#. .#. ###',
  J: '..# ..# ..# #.# .#.',
  K: '#.# #.# ##. #.# #.#',
  L: '#.. #.. #.. #.. ###',
  M: '#.# ### ### #.# #.#',
  N: '##. #.# #.# #.# #.#',
  O: '.#. #.# #.# #.# .#.',
  P: '##. #.# ##. #.. #..',
  Q: '.#. #.# #.# ##. .##',
  R: '##. #.# ##. #.# #.#',
  S: '.## #.. .#. ..# ##.',
  T: '### .#. .#. .#. .#.',
  U: '#.# #.# #.# #.# ###',
  V: '#.# #.# #.# #.# .#.',
  W: '#.# #.# ### ### #.#',
  X: '#.# #.# .#. #.# #.#',
  Y: '#.# #.# .#. .#. .#.',
  Z: '### ..# .#. #.. ###',
  '.': '... ... ... ... .#.',
  ',': '... ... ... .#. #..',
  '-': '... ... ### ... ...',
  '+': '... .#. ### .#. ...',
  ':': '... .#. ... .#. ...',
  '/': '..# ..# .#. #.. #..',
  '(': '.#. #.. #.. #.. .#.',
  ')': '.#. ..# ..# ..# .#.',
  '[': '##. #.. #.. #.. ##.',
  ']': '.## ..# ..# ..# .##',
  '%': '#.# ..# .#. #.. #.#',
  _: '... ... ... ... ###',
  '=': '... ### ... ### ...',
  '>': '#.. .#. ..# .#. #..',
  '<': '..# .#. #.. .#. ..#',
  '?': '##. ..# .#. ... .#.',
  '#': '#.# ### #.# ### #.#',
  "'": '.#. .#. ... ... ...',
  '*': '... #.# .#. #.# ...',
  '!': '.#. .#. .#. ... .#.',
};

export const GLYPH_WIDTH = 3;
export const GLYPH_HEIGHT = 5;
/** Horizontal advance per character, in font pixels (glyph plus one column of space). */
export const GLYPH_ADVANCE = 4;

const BITMAPS = new Map<string, boolean[]>(
  Object.entries(GLYPHS).map(([char, rows]) => [char, [...rows.replaceAll(' ', '')].map((c) => c === '#')]),
);
const UNKNOWN = BITMAPS.get('?') as boolean[];

/** 15 booleans, row-major, for one character. */
export function glyph(char: string): readonly boolean[] {
  return BITMAPS.get(char.toUpperCase()) ?? UNKNOWN;
}
