/**
 * Strings that break naive code builders (DESIGN.md §4: user text never becomes code): quotes,
 * newlines, backslashes, every control byte (0x03 and 0x04 stop and end raw-REPL jobs, spec §3.2),
 * the helper's result marker, Python and JSON fragments, paths, Unicode edge cases and 10 KB runs.
 * For fuzz tests; deterministic.
 */

const INJECTIONS = [
  "'",
  '"',
  "'''",
  '"""',
  "\\'",
  '\\"',
  "');import os;os.remove('/config.txt');('",
  '"); import machine; machine.reset(); ("',
  "' + str(1/0) + '",
  "'\nraise SystemExit\n'",
  '__import__("os").listdir("/")',
  "exec('print(1)')",
  "eval('1+1')",
  'f"{1/0}"',
  '{}',
  '{0}',
  '%s%s%s',
  '%(x)s',
  '#',
  ';',
  'pass; pass',
  'None',
  'True',
  '0',
  '-1',
  '1e400',
  'NaN',
  'inf',
  'HIGH',
  ' HIGH',
  'high',
  'OUTPUT',
  '1',
  '\x1ejlh:{"pwned":true}',
  '_jlh.out(1)',
  '_jlt',
  'get_state()',
  'nodes_clear()',
  '{"power":{"top_rail":9}}',
  '[1,2,3]',
  'null',
  '</script><script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a JS template fragment, on purpose.
  '${process.exit(1)}',
  '`rm -rf /`',
  '\\',
  '\\\\',
  'abc\\',
  '\\x03',
  '\\x04',
  '\\n',
  '\\u0000',
  '\\N{BULLET}',
  "b'\\x00'",
  "r'\\'",
  '\t',
  '\r',
  '\n',
  '\r\n',
  'line1\nline2',
  'a\rb',
  ' ',
  '',
  '   leading and trailing   ',
  '/',
  '//',
  '/..',
  '/../etc/passwd',
  '/slots/../config.txt',
  '/./x',
  '..',
  '.',
  'relative/path.txt',
  'C:\\Windows\\system32',
  '/a/b/c/',
  '/con',
  '/a:b',
  '/a*b?',
  '/a|b',
  '/a<b>',
  '/x\x00y',
  '/x\ny',
  '/%2e%2e/',
  `/${'d/'.repeat(200)}`,
];

const UNICODE = [
  'é',
  'naïve café',
  '日本語のテキスト',
  '😀',
  '👩‍👩‍👧',
  '\u0301',
  'e\u0301',
  '\u200b',
  '\u200e',
  '\u202e',
  '\ufeff',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u00a0',
  '\uffff',
  '\ufffd',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udbff\udfff',
  '𝕳𝖊𝖑𝖑𝖔',
  'Ω≈ç√∫',
  'ʇxǝʇ',
  '\u0000',
  'ÿ',
  '\u00ff\u0100',
];

const RAW_REPL = [
  '\x03',
  '\x04',
  '\x03\x04',
  '\x04\x04>',
  'OK\x04\x04>',
  '\x01',
  '\x02',
  '\x05A\x01',
  '\x11',
  '\x1b[2J',
  '\x1b]0;title\x07',
  '\x7f',
  'abc\x03def',
  'abc\x04def',
  '\x03\x03\x03',
  'raw REPL; CTRL-B to exit\r\n>',
];

/** Every control byte alone and inside text. */
function controlBytes(): string[] {
  const out: string[] = [];
  for (let c = 0; c < 0x20; c++) {
    const ch = String.fromCharCode(c);
    out.push(ch, `a${ch}b`);
  }
  out.push('\x7f', 'a\x7fb');
  return out;
}

function long(): string[] {
  const kb10 = 10 * 1024;
  return [
    'a'.repeat(kb10),
    "'".repeat(kb10),
    '\\'.repeat(kb10),
    '\n'.repeat(kb10),
    '\x03'.repeat(kb10),
    '日'.repeat(kb10 / 2),
    '😀'.repeat(kb10 / 4),
    "');".repeat(Math.ceil(kb10 / 3)).slice(0, kb10),
    Array.from({ length: kb10 }, (_, i) => String.fromCharCode(i % 256)).join(''),
  ];
}

/** Quotes and escapes glued to line breaks and raw-REPL bytes, in every order. */
function mixes(): string[] {
  const left = ["'", '"', '\\', "'''"];
  const right = ['\n', '\r', '\x03', '\x04', '\x00'];
  return left.flatMap((a) => right.flatMap((b) => [a + b, b + a]));
}

/** 200+ distinct hostile strings. */
export function hostileStrings(): string[] {
  return [...new Set([...INJECTIONS, ...UNICODE, ...RAW_REPL, ...controlBytes(), ...mixes(), ...long()])];
}
