import { describe, expect, it } from 'vitest';
import { isExceptionReport, parsePythonError } from './pythonError.js';

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

describe('isExceptionReport', () => {
  const traceback =
    'Traceback (most recent call last):\r\n  File "<stdin>", line 1, in <module>\r\nZeroDivisionError: divide by zero\r\n';
  it('takes what MicroPython prints for an uncaught exception', () => {
    expect(isExceptionReport(traceback, true)).toBe(true);
    expect(isExceptionReport('MemoryError: memory allocation failed\r\n', false)).toBe(true);
    expect(
      isExceptionReport(
        "Traceback (most recent call last):\nNameError: name '\u2028' isn't defined\n",
        false,
      ),
    ).toBe(true);
    expect(
      isExceptionReport(
        'Traceback (most recent call last):\n  File "<stdin>", line 2\nSyntaxError: invalid syntax\n',
        false,
      ),
    ).toBe(true);
  });
  it('refuses junk: bytes that are not text, no exception line, several lines without a header', () => {
    expect(isExceptionReport('Junk: \uFFFD', true)).toBe(false);
    expect(isExceptionReport('\x01\x02 OK', false)).toBe(false);
    expect(isExceptionReport('{"a": 1}\n', false)).toBe(false);
    expect(isExceptionReport('hello\nValueError: x\n', false)).toBe(false);
  });
  it('asks our own helper jobs for the traceback header, as they always run in a frame', () => {
    expect(isExceptionReport('ValueError: x\r\n', true)).toBe(false);
    expect(isExceptionReport('ValueError: x\r\n', false)).toBe(true);
  });
});
