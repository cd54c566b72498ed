/**
 * The board's read-only telemetry port, CDC3 (the USBSer3 backchannel, spec §4): what a person's
 * view of the board reads, so that watching never takes a turn at the REPL. It never enters
 * Python and refuses anything that would change the board, so reading it cannot disturb a call.
 *
 * The firmware (Architeuthis-Flux/JumperlOS src/Ser3Backchannel.cpp @54c931db) echoes `:` and every
 * character of a verb line, then CRLF at its end (usbSer3_readLine), then answers:
 * - `:json[:section]` with two line ends, the state JSON (JsonState::getJumperlessStateJSON, the
 *   same document as `get_state()`: power, nets, gpio, overlays; `:json:power` only `{"power":...}`),
 *   and a line end (cmd_showJsonState, src/SingleCharCommands.cpp @020f59a8);
 * - `:leds` with `leds{<count>:<rrggbb per LED>}` and CRLF (usbSer3_sendLeds).
 * One question at a time: answers carry no id, so the next waits until the last one ended.
 */
import { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';

/** What one look over the telemetry port brings. */
export interface TelemetryReading {
  /** The state JSON's text, as `:json` answers it. */
  state: string;
  /** One colour (0xrrggbb) per LED, as `:leds` answers them. */
  leds: number[];
}

const ANSWER_MS = 2_000;
/** Longer answers are garbage, not a state (a full board's state is about 33 KB). */
const MAX_ANSWER = 256 * 1024;

/** The JSON object that starts at the first `{` of `text`, or undefined while it is incomplete. */
export function firstJsonObject(text: string): { json: string; end: number } | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return { json: text.slice(start, i + 1), end: i + 1 };
  }
  return undefined;
}

/** `leds{N:hex...}`: the colours, or undefined while the answer is incomplete. Throws on garbage. */
export function parseLeds(text: string): number[] | undefined {
  const start = text.indexOf('leds{');
  if (start < 0) return undefined;
  const end = text.indexOf('}', start);
  if (end < 0) return undefined;
  const match = /^leds\{(\d+):([0-9a-fA-F]*)\}$/.exec(text.slice(start, end + 1));
  const count = Number(match?.[1]);
  const hex = match?.[2] ?? '';
  if (!match || hex.length !== count * 6) {
    throw new DeviceError('protocol', `the telemetry port's LED answer is not leds{N:rrggbb...}`);
  }
  return Array.from({ length: count }, (_, i) => Number.parseInt(hex.slice(i * 6, i * 6 + 6), 16));
}

/** CDC3 as the view reads it; opens its link at the first question. */
export class TelemetryPort {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly link: DeviceLink) {}

  /** Where it reads, for messages. */
  get address(): string {
    return this.link.address;
  }

  /** The state JSON and the LEDs, one after the other. */
  async read(signal?: AbortSignal): Promise<TelemetryReading> {
    const state = await this.ask('json', (text) => firstJsonObject(text)?.json, signal);
    JSON.parse(state);
    const leds = await this.ask('leds', parseLeds, signal);
    return { state, leds };
  }

  /** `:json:power`'s answer, parsed: what tells the telemetry port apart from the others. */
  async power(signal?: AbortSignal): Promise<unknown> {
    return JSON.parse(await this.ask('json:power', (text) => firstJsonObject(text)?.json, signal));
  }

  close(): Promise<void> {
    return this.link.close();
  }

  /** Sends `:verb` and waits for `done` to find the whole answer after the echoed line. */
  ask<T>(verb: string, done: (answer: string) => T | undefined, signal?: AbortSignal): Promise<T> {
    const asked = this.queue.then(() => this.askNow(verb, done, signal));
    this.queue = asked.catch(() => {});
    return asked;
  }

  private async askNow<T>(
    verb: string,
    done: (answer: string) => T | undefined,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.link.open();
    return new Promise<T>((resolve, reject) => {
      let text = '';
      const echo = `:${verb}\r\n`;
      const finish = (error: DeviceError | undefined, value?: T) => {
        clearTimeout(timer);
        stopData();
        stopClose();
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(value as T);
      };
      const onAbort = () => finish(new DeviceError('canceled', `the telemetry read (:${verb}) was canceled`));
      const timer = setTimeout(
        () =>
          finish(
            new DeviceError('timeout', `${this.link.address} did not answer :${verb} within ${ANSWER_MS} ms`),
          ),
        ANSWER_MS,
      );
      const stopClose = this.link.onClose((reason) => finish(reason));
      const stopData = this.link.onData((chunk) => {
        text += chunk.toString('latin1');
        if (text.length > MAX_ANSWER) {
          return finish(new DeviceError('protocol', `${this.link.address} answered :${verb} with too much`));
        }
        const at = text.indexOf(echo);
        if (at < 0) return;
        try {
          const value = done(text.slice(at + echo.length));
          if (value !== undefined) finish(undefined, value);
        } catch (error) {
          finish(error instanceof DeviceError ? error : new DeviceError('protocol', String(error)));
        }
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.link.write(Buffer.from(`:${verb}\n`, 'latin1'));
    });
  }
}
