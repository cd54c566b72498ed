/**
 * The Python the VM runs besides the `jumperless` module: stand-ins for the board's built-in `sys`,
 * `gc`, `machine` and `time` (the WebAssembly build has its own identity, an auto-growing heap and
 * a busy-waiting sleep), and the code the firmware runs into `__main__` at power-on and after every
 * soft reset. All of it is our own Python, written from the firmware's behaviour (cited per piece).
 */

import { FIRMWARE, type FirmwareVersion, NEWEST_FIRMWARE } from '../board/firmware.js';

/** Where the module sources live inside the VM: outside the board's flash (see flashSync.ts). */
export const MODULE_DIR = '/tmp/.jumperless';

/**
 * The firmware build the sim answers as (genhdr/mpversion.h:2-4, VERSION:1, mpconfigport.h:463-486).
 * 5.7.11 still builds MicroPython 1.28 (MpRemoteService.cpp@8abe273: "MicroPython >= 1.28"); its
 * build date is not in the sources read, so both releases print the 5.7.0.13 one.
 */
export const BOARD_IDENTITY = {
  micropython: [1, 28, 0] as const,
  gitTag: 'v1.28.0-dirty',
  buildDate: '2026-06-01',
  /** MICROPY_BANNER_MACHINE: board name, firmware version, MCU. */
  machine: machineName(NEWEST_FIRMWARE),
  /** MICROPY_PY_SYS_PLATFORM (mpconfigport.h:425). */
  platform: 'jumperless-rp2350',
} as const;

/** MICROPY_BANNER_MACHINE of a release: `jumperless-v5 v5.7.11.0 with rp2350b`. */
export function machineName(version: FirmwareVersion): string {
  return `jumperless-v5 v${version} with rp2350b`;
}

/** `MicroPython v1.28.0-dirty on 2026-06-01`: the banner's first half, also in sys.version. */
export const NAME_AND_VERSION = `MicroPython ${BOARD_IDENTITY.gitTag} on ${BOARD_IDENTITY.buildDate}`;

/** The GC heap without PSRAM on a release (firmware.ts: 96000 bytes on 5.7.0.13, 64 KB on 5.7.11). */
export const heapBytesOf = (version: FirmwareVersion): number => FIRMWARE[version].behaviour.heapBytesNoPsram;

/**
 * The GC heap of a board without PSRAM on the newest release. On 5.7.0.13 it was a 96 KB malloc
 * (JumperlessDefines.h:41-42) of which the allocation and finaliser tables left 6000 blocks of 16
 * bytes (gc.c:146-191); 5.7.11 gives MicroPython 64 KB (firmware.ts cites the source).
 */
export const BOARD_HEAP_BYTES = heapBytesOf(NEWEST_FIRMWARE);

/**
 * With PSRAM the firmware adds the MicroPython part of the chip as a second heap area
 * (micropython_embed.c:110-122): 8 MB chip (platformio.ini:44) minus the 2048 KB app arena of the
 * default config (config.h:40; PsramArena.cpp:271-325), less its tables. Inferred: the arena size
 * is a user setting, so real boards may differ.
 */
export const psramHeapBytesOf = (version: FirmwareVersion): number => heapBytesOf(version) + 6_147_328;

/** With PSRAM on the newest release. */
export const PSRAM_HEAP_BYTES = psramHeapBytesOf(NEWEST_FIRMWARE);

/**
 * Bytes of the VM heap that our Python half of the firmware keeps resident (the `jumperless` module
 * and the stand-ins below; on the board they are C in flash and cost no heap). The VM's heap is
 * this much bigger than the board's and `gc` subtracts it. Measured at boot (see `Vm.residentBytes`);
 * vm.test.ts fails with the new value when the module grows or shrinks.
 */
export const MODULE_RESIDENT_BYTES = 75_520;

/** `time` with sleeps that Ctrl-C can interrupt (the VM's own sleep busy-waits). */
export const TIME_MODULE = `
from utime import *
import jumperless as _jl
def sleep_ms(ms):
    _jl._c('_sleep_ms', ms)
def sleep(seconds):
    sleep_ms(seconds * 1000)
def sleep_us(us):
    sleep_ms(us / 1000)
`;

/**
 * The board's \`gc\`: the VM's collector, reporting the board's heap. What our own module keeps
 * resident is not counted, so mem_free() + mem_alloc() is the board's total (gc.c:757-766).
 */
export function gcModule(totalBytes: number, residentBytes: number): string {
  return `
from gc import *
import gc as _vm
def mem_alloc():
    n = _vm.mem_alloc() - ${residentBytes}
    return n if n > 0 else 0
def mem_free():
    n = ${totalBytes} - mem_alloc()
    return n if n > 0 else 0
`;
}

/**
 * The board's \`sys\`: the VM's, with the firmware's identity (modsys.c:59-104, mpconfigport.h:425),
 * and stdio objects that have no flush (sys_stdio_mphal.c:100-131: every write is sent at once).
 * It shares the VM's path list, modules dict and exit.
 */
export const SYS_MODULE = sysModule(NEWEST_FIRMWARE);

export function sysModule(version: FirmwareVersion): string {
  return `
import sys as _vm
import io as _io

# path, ps1, ps2... are delegated attributes of the built-in sys, not in its dict: copy each.
for _n in dir(_vm):
    if not _n.startswith('_'):
        globals()[_n] = getattr(_vm, _n)
del _n

platform = '${BOARD_IDENTITY.platform}'
version = '3.4.0; ${NAME_AND_VERSION}'


class _Implementation(tuple):
    # An attrtuple of three fields: no _mpy (PERSISTENT_CODE_LOAD is 0), no _build, no _thread.
    name = property(lambda s: s[0])
    version = property(lambda s: s[1])
    _machine = property(lambda s: s[2])

    def __repr__(s):
        return '(name=%r, version=%r, _machine=%r)' % (s[0], s[1], s[2])

    __str__ = __repr__


implementation = _Implementation(('micropython', (${BOARD_IDENTITY.micropython.join(', ')}, ''), '${machineName(version)}'))


class TextIOWrapper(_io.IOBase):
    def __init__(self, stream, fd):
        self._s = stream
        self._fd = fd
        self.buffer = stream.buffer

    def write(self, data):
        return self._s.write(data)

    def read(self, *a):
        return self._s.read(*a)

    def readinto(self, *a):
        return self._s.readinto(*a)

    def readline(self, *a):
        return self._s.readline(*a)

    def readlines(self, *a):
        return self._s.readlines(*a)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        pass

    def __repr__(self):
        return '<io.TextIOWrapper %d>' % self._fd


stdin = TextIOWrapper(_vm.stdin, 0)
stdout = TextIOWrapper(_vm.stdout, 1)
stderr = TextIOWrapper(_vm.stderr, 2)
`;
}

/**
 * The board's \`machine\` (extmod/modmachine.c:145-250 with modmachine_jl.inc). soft_reset is
 * sys.exit: the extmod entry comes first in the const table and wins (modmachine.c:159). Left out:
 * Pin, Timer, RTC, PWM, ADC, I2C, SPI, UART, WDT, SoftI2C, SoftSPI, bitstream, disable_irq /
 * enable_irq, bootloader and deepsleep (which hangs a real board: modmachine_jl.inc:90-98).
 */
export const MACHINE_MODULE = `
import sys as _sys
import jumperless as _jl

PWRON_RESET = 1
WDT_RESET = 3
soft_reset = _sys.exit


def reset():
    # A watchdog reboot (modmachine_jl.inc:50-56): never returns.
    _jl._c('_machine_reset')


def reset_cause():
    return _jl._c('_machine_reset_cause')


def freq(*a):
    # clock_get_hz(clk_sys) (mphalport.c:228-230): the RP2350 at its default 150 MHz (inferred from
    # .clangd:92, F_CPU); setting it is accepted and ignored (modmachine_jl.inc:74-80).
    if a:
        return None
    return 150000000


def unique_id():
    # The flash chip's 8-byte id (modmachine_jl.inc:43-48); every virtual board has this one.
    return b'\\xe6\\x61\\x4c\\x31\\x13\\x2a\\x5b\\x2f'


def idle():
    pass


def lightsleep(*a):
    # Not implemented on the board: it only idles (modmachine_jl.inc:82-88).
    pass
`;

/**
 * Puts the stand-ins in place (sys.modules is searched before built-in modules), imports the
 * \`jumperless\` module and runs its set-up (_BOOT). Run at boot and after every soft reset, before
 * anything else imports.
 */
export const RUNTIME_MODULE = `
import sys as _vm_sys
import _jl_sys, _jl_gc
_vm_sys.modules['sys'] = _jl_sys
_vm_sys.modules['gc'] = _jl_gc
import jumperless, time, _jl_machine
_vm_sys.modules['machine'] = _jl_machine
jumperless._run_boot()
`;

/** The firmware's sys.path (Python_Proper.cpp:5083-5100), rebuilt on every soft reset. */
const SYS_PATH = [
  '',
  '/python_scripts',
  '/python_scripts/lib',
  '/python_scripts/modules',
  '/python_scripts/examples',
];

/**
 * The start of both preludes: our runtime in place, then the firmware's setupFilesystemAndPaths
 * (Python_Proper.cpp:5077-5100). Leaves `sys` in __main__, as the firmware does.
 */
export const RUNTIME_SETUP = `
import sys
sys.path.clear()
sys.path.append('${MODULE_DIR}')
import _jl_runtime
del _jl_runtime
import sys
sys.path.clear()
for _jl_p in ${JSON.stringify(SYS_PATH)}:
    sys.path.append(_jl_p)
del _jl_p
`;

/**
 * walk(p) as the firmware defines it in __main__ (Python_Proper.cpp:2593-2608, again after a soft
 * reset at JumperlessMicroPythonAPI.cpp:1412-1427): one required argument ('' for the root), a line
 * `f|path|size` per file, `d|path|size` per folder before its contents; its bare excepts swallow
 * everything, KeyboardInterrupt included, as the firmware's do.
 */
const WALK = `
import os
def walk(p):
    for name in os.listdir(p if p else '/'):
        path = p + '/' + name
        try:
            st = os.stat(path)
        except:
            st = (0,) * 7
        try:
            if st[0] & 0x4000 == 0:
                print('f|%s|%s' % (path, st[6]))
            elif name not in ('.', '..'):
                print('d|%s|%s' % (path, st[6]))
                walk(path)
        except:
            print('f|%s/???|%s' % (p, st[6]))
`;

/** addMicroPythonModules (Python_Proper.cpp:2649-2673). */
const MODULES = `
import time
import os
import math
import gc
`;

/**
 * Power-on, after RUNTIME_SETUP (initMicroPythonProper, Python_Proper.cpp:746-783):
 * addJumperlessPythonFunctions (2544-2608: `jumperless`, `funcs`, the star import,
 * `check_interrupt`, `walk`), the modules, and the boot.py search (run separately, BOOT_PY).
 */
export const BOOT_GLOBALS = `
import jumperless
funcs = [n for n in dir(jumperless) if not n.startswith('_')]
from jumperless import *
def check_interrupt():
    # Sleeps a millisecond so a tight loop gets its interrupts polled.
    import time
    time.sleep_ms(1)
${WALK}${MODULES}`;

/**
 * The first boot.py found runs once per power-on (Python_Proper.cpp:663-694), in __main__, leaving
 * `candidates` and `_path` (and `f`, `__file__` when one ran).
 */
export const BOOT_PY = `
import sys
candidates = [
    'boot.py',
    '/python_scripts/boot.py',
    '/python_scripts/lib/boot.py',
    '/python_scripts/modules/boot.py',
    '/python_scripts/examples/boot.py',
]
for _path in candidates:
    try:
        f = open(_path)
    except OSError:
        continue
    try:
        __file__ = _path
        exec(f.read(), globals())
    finally:
        f.close()
    break
`;

/**
 * After a soft reset and RUNTIME_SETUP (jl_soft_reboot, JumperlessMicroPythonAPI.cpp:1389-1427): a new
 * `micropython` global (1394-1400), the modules, the star import and walk. No `jumperless`,
 * `funcs` or `check_interrupt`: addJumperlessPythonFunctions returns at once on a second call
 * (Python_Proper.cpp:2530-2536).
 */
export const RESET_GLOBALS = `
import micropython
micropython.kbd_intr(3)
${MODULES}
try:
    from jumperless import *
except:
    pass
${WALK}`;

/**
 * Drops what the last VM made (modules, globals), as mp_embed_deinit/init does to the heap, and
 * what it mounted: mp_init empties the VFS mount table and the current directory
 * (JumperlOS lib/micropython/micropython_embed/py/runtime.c:138-139, reached from jl_soft_reboot
 * through mp_embed_init, JumperlessMicroPythonAPI.cpp:1371-1382 and micropython_embed.c:125; the
 * same in MicroPython's py/runtime.c:141-142), before jl_vfs_mount_root mounts the flash again. A
 * filesystem a script mounted (mpremote mount) is gone, and relative paths and imports are the
 * flash's again. The board drops the table without calling the filesystem's umount(); here the
 * VM's own VFS unmounts it, so its umount() is silenced first.
 */
export const CLEAR_VM = `
def _jl_clear():
    import sys
    # Nothing more is imported from a filesystem here (a script's could shadow os); RUNTIME_SETUP
    # makes the path again.
    sys.path.clear()
    import gc
    for name in list(sys.modules):
        if name != '_fw':
            del sys.modules[name]
    import os
    for fs, point in os.mount():
        if point != '/':
            try:
                fs.umount = lambda: None
            except Exception:
                pass
            try:
                os.umount(point)
            except Exception:
                pass
    os.chdir('/')
    sys.modules.pop('os', None)
    g = globals()
    for name in list(g):
        if name != '__name__':
            del g[name]
    gc.collect()
_jl_clear()
`;
