/** The JSON-RPC error an SDK client call rejected with; fails the test when the call succeeded. */
import { ProtocolError } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

export async function rpcError(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}
