/**
 * Where the board view reads when the board has a telemetry port (CDC3, device/telemetry.ts): the
 * state JSON and the LEDs, without a turn at the REPL. Only the CLI opens one (it picks links).
 */
export interface BoardTelemetry {
  /** The port, for messages. */
  readonly address: string;
  read(signal?: AbortSignal): Promise<{ state: string; leds: number[] }>;
}
