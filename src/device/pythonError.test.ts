import { describe, expect, it } from 'vitest';
import { parsePythonError } from './pythonError.js';

describe('parsePythonError', () => {
  it('reads type and message from the last line', () => {
    const tb =
      'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\nValueError: Unknown node name\n';
    expect(parsePythonError(tb)).toEqual({ type: 'ValueError', message: 'Unknown node name', traceback: tb });
  });

  it('reads an exception without a message', () => {
    expect(parsePythonError('Traceback...\nKeyboardInterrupt: \n')).toMatchObject({
      type: 'KeyboardInterrupt',
      message: '',
    });
    expect(parsePythonError('KeyboardInterrupt\n')).toMatchObject({ type: 'KeyboardInterrupt', message: '' });
  });

  it('keeps odd text as the message', () => {
    expect(parsePythonError('something odd happened!\n')).toMatchObject({
      type: 'Error',
      message: 'something odd happened!',
    });
  });
});
