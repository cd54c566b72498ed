/**
 * A strict JSON reader (the RFC 8259 grammar JSON.parse accepts) that remembers the line each value
 * and key starts on. JSON.parse reports only a character offset, and only for syntax errors; a file
 * checked after parsing (the parts file) needs the line of the offending value to say where it is.
 *
 * It never throws: any input gives either a tree or a located error.
 */

export type JsonNode =
  | { readonly kind: 'object'; readonly line: number; readonly entries: readonly JsonEntry[] }
  | { readonly kind: 'array'; readonly line: number; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly line: number; readonly value: string }
  | { readonly kind: 'number'; readonly line: number; readonly value: number }
  | { readonly kind: 'boolean'; readonly line: number; readonly value: boolean }
  | { readonly kind: 'null'; readonly line: number };

/** One member of an object, in file order (duplicate keys are kept; the caller decides). */
export interface JsonEntry {
  readonly key: string;
  readonly line: number;
  readonly value: JsonNode;
}

export type JsonReadResult =
  | { readonly ok: true; readonly value: JsonNode }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly message: string };

export interface JsonReadOptions {
  /** Deepest nesting of arrays and objects accepted (a guard for the call stack). Default 64. */
  readonly maxDepth?: number;
}

class Failure {
  constructor(
    readonly at: number,
    readonly message: string,
  ) {}
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** How a character is named in a message: quoted if printable, else its code point. */
function shown(ch: string | undefined): string {
  if (ch === undefined) return 'the end of the file';
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff) || code === 0xfeff
    ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
    : `'${ch}'`;
}

class Reader {
  private pos = 0;
  private line = 1;
  /** Line starts seen so far, to turn an error offset back into a line and column. */
  private readonly lineStarts: number[] = [0];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  document(): JsonNode {
    this.space();
    const value = this.value(0);
    this.space();
    if (this.pos < this.text.length) {
      throw new Failure(this.pos, `unexpected ${shown(this.text[this.pos])} after the end of the JSON value`);
    }
    return value;
  }

  locate(at: number): { line: number; column: number } {
    // Errors are raised at or after the last whitespace read, so the line is among those seen.
    let line = this.lineStarts.length;
    while (line > 1 && this.lineStarts[line - 1]! > at) line--;
    return { line, column: at - this.lineStarts[line - 1]! + 1 };
  }

  private space(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text.charCodeAt(this.pos);
      if (ch === 0x20 || ch === 0x09) this.pos++;
      else if (ch === 0x0a || ch === 0x0d) {
        this.pos++;
        if (ch === 0x0d && text.charCodeAt(this.pos) === 0x0a) this.pos++;
        this.line++;
        this.lineStarts.push(this.pos);
      } else break;
    }
  }

  private value(depth: number): JsonNode {
    const line = this.line;
    const ch = this.text[this.pos];
    switch (ch) {
      case '{':
        return this.object(depth + 1, line);
      case '[':
        return this.array(depth + 1, line);
      case '"':
        return { kind: 'string', line, value: this.string() };
      case 't':
        return { kind: 'boolean', line, value: this.literal('true', true) };
      case 'f':
        return { kind: 'boolean', line, value: this.literal('false', false) };
      case 'n':
        this.literal('null', null);
        return { kind: 'null', line };
      default:
        if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
          return { kind: 'number', line, value: this.number() };
        }
        if (ch !== undefined && /[A-Za-z_]/.test(ch)) this.literal('', null);
        throw new Failure(this.pos, `expected a value, found ${shown(ch)}`);
    }
  }

  private nest(depth: number): void {
    if (depth > this.maxDepth) throw new Failure(this.pos, `nesting deeper than ${this.maxDepth} levels`);
  }

  private object(depth: number, line: number): JsonNode {
    this.nest(depth);
    this.pos++; // {
    const entries: JsonEntry[] = [];
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', line, entries };
    }
    for (;;) {
      if (this.text[this.pos] !== '"') {
        const found = this.text[this.pos];
        throw new Failure(
          this.pos,
          found === '}' && entries.length > 0
            ? "a comma before '}' (JSON allows no trailing comma)"
            : `expected a "quoted" key, found ${shown(found)}`,
        );
      }
      const keyLine = this.line;
      const key = this.string();
      this.space();
      if (this.text[this.pos] !== ':')
        throw new Failure(
          this.pos,
          `expected ':' after the key "${key}", found ${shown(this.text[this.pos])}`,
        );
      this.pos++;
      this.space();
      const value = this.value(depth);
      entries.push({ key, line: keyLine, value });
      this.space();
      const next = this.text[this.pos];
      if (next === '}') {
        this.pos++;
        return { kind: 'object', line, entries };
      }
      if (next !== ',')
        throw new Failure(this.pos, `expected ',' or '}' after a member, found ${shown(next)}`);
      this.pos++;
      this.space();
    }
  }

  private array(depth: number, line: number): JsonNode {
    this.nest(depth);
    this.pos++; // [
    const items: JsonNode[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', line, items };
    }
    for (;;) {
      if (this.text[this.pos] === ']')
        throw new Failure(this.pos, "a comma before ']' (JSON allows no trailing comma)");
      items.push(this.value(depth));
      this.space();
      const next = this.text[this.pos];
      if (next === ']') {
        this.pos++;
        return { kind: 'array', line, items };
      }
      if (next !== ',')
        throw new Failure(this.pos, `expected ',' or ']' after an item, found ${shown(next)}`);
      this.pos++;
      this.space();
    }
  }

  private string(): string {
    const text = this.text;
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    let run = this.pos;
    for (;;) {
      if (this.pos >= text.length) throw new Failure(start, 'a string is not closed (missing ")');
      const code = text.charCodeAt(this.pos);
      if (code === 0x22) {
        out += text.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (code < 0x20) {
        throw new Failure(
          this.pos,
          code === 0x0a || code === 0x0d
            ? 'a string is not closed before the end of the line (missing ")'
            : `${shown(text[this.pos])} inside a string (write it as an escape)`,
        );
      }
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      out += text.slice(run, this.pos);
      const kind = text[this.pos + 1];
      if (kind === 'u') {
        const hex = text.slice(this.pos + 2, this.pos + 6);
        if (!HEX4.test(hex)) throw new Failure(this.pos, 'a \\u escape needs four hex digits');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else {
        const escaped = kind === undefined ? undefined : ESCAPES[kind];
        if (escaped === undefined) throw new Failure(this.pos, `unknown escape \\${kind ?? ''} in a string`);
        out += escaped;
        this.pos += 2;
      }
      run = this.pos;
    }
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match || match[0] === '-') throw new Failure(this.pos, 'a malformed number');
    const end = this.pos + match[0].length;
    const after = this.text[end];
    // "01", "1.", "1e", ".5" and "1x" are not JSON numbers; name the exact problem.
    if (after !== undefined && /[0-9.eE+\-a-zA-Z_]/.test(after)) {
      throw new Failure(this.pos, `a malformed number ${JSON.stringify(this.text.slice(this.pos, end + 1))}`);
    }
    this.pos = end;
    return Number(match[0]);
  }

  /** Reads `word`; an empty `word` only reports the bare word found here. */
  private literal<T>(word: string, value: T): T {
    if (word === '' || !this.text.startsWith(word, this.pos)) {
      const found = this.text.slice(this.pos).match(/^[A-Za-z_]+/)?.[0] ?? this.text[this.pos];
      throw new Failure(
        this.pos,
        `unexpected ${found !== undefined && found.length > 1 ? `word "${found.slice(0, 20)}"` : shown(found)} (strings need "quotes")`,
      );
    }
    this.pos += word.length;
    return value;
  }
}

/** Reads one JSON document. Errors carry a 1-based line and column (columns count UTF-16 units). */
export function readJson(text: string, options: JsonReadOptions = {}): JsonReadResult {
  const reader = new Reader(text, options.maxDepth ?? 64);
  try {
    return { ok: true, value: reader.document() };
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    const { line, column } = reader.locate(error.at);
    return { ok: false, line, column, message: error.message };
  }
}

/** The plain value of a node, as JSON.parse would give it (a later duplicate key wins). */
export function toPlain(node: JsonNode): unknown {
  switch (node.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const entry of node.entries) {
        Object.defineProperty(out, entry.key, {
          value: toPlain(entry.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case 'array':
      return node.items.map(toPlain);
    case 'null':
      return null;
    default:
      return node.value;
  }
}
