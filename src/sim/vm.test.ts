import { describe, expect, it } from 'vitest';
import { testBoard } from '../../test/support/firmwareEnv.js';
import { OwnFrameFilter, Vm, withoutOwnFrames } from './vm.js';
import { MODULE_DIR, MODULE_RESIDENT_BYTES } from './vmRuntime.js';

/** How far the measured footprint may drift before MODULE_RESIDENT_BYTES must be updated. */
const RESIDENT_TOLERANCE_BYTES = 2048;

async function bootedVm(): Promise<{ vm: Vm; output: () => string }> {
  const board = testBoard();
  let text = '';
  const vm = await Vm.create({
    functions: { ...board.functions, _sleep_ms: () => null },
    onOutput: (bytes) => {
      text += Buffer.from(bytes).toString('latin1');
    },
    beforeCall: () => {},
  });
  vm.boot();
  return { vm, output: () => text };
}

describe('the VM', () => {
  it('keeps our module resident in about MODULE_RESIDENT_BYTES of heap', async () => {
    const { vm } = await bootedVm();
    expect(vm.bootError).toBeUndefined();
    const drift = Math.abs(vm.residentBytes - MODULE_RESIDENT_BYTES);
    expect(
      drift,
      `the module now keeps ${vm.residentBytes} bytes resident: set MODULE_RESIDENT_BYTES (src/sim/vmRuntime.ts) to ${vm.residentBytes}`,
    ).toBeLessThanOrEqual(RESIDENT_TOLERANCE_BYTES);
  });

  it('has the globals of a fresh boot, then those of a soft reset', async () => {
    const { vm } = await bootedVm();
    const present = (names: string[]) =>
      `sorted(n for n in ${JSON.stringify(names)} if n in globals()) == ${JSON.stringify([...names].sort())}`;
    const always = ['sys', 'time', 'os', 'math', 'gc', 'walk', 'connect', 'jfs'];
    expect(
      vm.runFile(
        `assert ${present([...always, 'jumperless', 'funcs', 'check_interrupt', 'candidates', '_path'])}`,
      ),
    ).toBeUndefined();
    expect(vm.runFile("assert 'micropython' not in globals()")).toBeUndefined();
    vm.softReset();
    expect(vm.bootError).toBeUndefined();
    expect(vm.runFile(`assert ${present([...always, 'micropython'])}`)).toBeUndefined();
    expect(
      vm.runFile(
        "assert not [n for n in ('jumperless', 'funcs', 'check_interrupt', 'candidates', '_path') if n in globals()]",
      ),
    ).toBeUndefined();
    expect(vm.runFile("import jumperless, jfs\nassert 'connect' in dir(jumperless)")).toBeUndefined();
  });

  it("drops our own module's frames from tracebacks, in one piece or split anywhere", () => {
    const traceback = `Traceback (most recent call last):\n  File "<stdin>", line 3, in <module>\n  File "${MODULE_DIR}/time.py", line 7, in sleep\n  File "${MODULE_DIR}/jumperless.py", line 37, in _c\nKeyboardInterrupt: \n`;
    const wanted =
      'Traceback (most recent call last):\n  File "<stdin>", line 3, in <module>\nKeyboardInterrupt: \n';
    expect(withoutOwnFrames(traceback)).toBe(wanted);
    const bytes = Buffer.from(`x\n  File "ok"\n${traceback}  F`, 'latin1');
    for (const size of [1, 2, 5, 13, bytes.length]) {
      let out = '';
      const filter = new OwnFrameFilter((b) => {
        out += Buffer.from(b).toString('latin1');
      });
      for (let i = 0; i < bytes.length; i += size) filter.push(bytes.subarray(i, i + size));
      filter.push(Buffer.from('ine\n'));
      expect(out).toBe(`x\n  File "ok"\n${wanted}  Fine\n`);
    }
  });
});
