import { describe, expect, it } from 'vitest';
import { FIRMWARE, FIRMWARE_VERSIONS } from './firmware.js';
import { checkProbes, citesLaterSource, PROBES, probesFor } from './probes.js';

/** Calls that change the board when their arguments are valid. */
const MUTATOR =
  /\b(connect|disconnect|fast_connect|fast_disconnect|nodes_clear|nodes_save|switch_slot|set_state|nodes_discard|dac_set|set_dac|gpio_set\w*|set_gpio\w*|gpio_claim_pin|gpio_release\w*|pwm|pwm_set_\w+|pwm_stop|stop_pwm|set_pwm\w*|wavegen_set_\w+|wavegen_start|wavegen_stop|set_wavegen\w*|overlay_set\w*|overlay_clear\w*|overlay_shift|overlay_place|oled_print|oled_clear|oled_show|oled_connect|oled_disconnect|oled_set\w*|oled_load_bitmap|oled_display_bitmap|oled_show_bitmap_file|oled_screen\w*|oled_add_\w+|oled_copy_print|set_net_name|set_net_color\w*|undo|redo|history_jump|history_snapshot|context_toggle|send_raw|arduino_reset|pause_core2|run_app|FakeGpioPin|fs_write|force_service\w*|set_switch_position|probe_autoconnect|clickwheel_up|clickwheel_down|clickwheel_press|clickwheel_reset_position|la_\w+)\s*\(/;
const FILE_WRITE =
  /jfs\.(write|mkdir|rmdir|remove|rename)|os\.(remove|mkdir|rmdir|rename)|open\([^)]*['"](w|a|r\+)/;

/**
 * Read-only probes that call a mutator anyway, each reviewed: only with arguments the firmware
 * refuses, with the value already in force, or a fake GPIO output (disabled in 5.7.0.13,
 * FakeGpio.cpp:335-354: refused before anything is stored).
 */
const REVIEWED_READ_ONLY = new Set([
  'types.pad_constants_are_not_nodes',
  'connections.arg_count_errors',
  'connections.keyword_args_refused',
  'connections.node_argument_errors',
  'connections.history_read_only',
  'connections.send_raw_argument_errors',
  'connections.send_raw_out_of_range_ignored',
  'connections.history_jump_positive',
  'files.mkdir_errors',
  'files.missing_path_errnos_os_vs_jfs',
  'files.root_path_ops_eperm',
  'files.name_longer_than_64_rejected',
  'power.dac_arg_errors',
  'gpio.pin_arg_errors',
  'pwm.arg_errors',
  'pwm.setup_refuses_below_0_01_hz',
  'wavegen.arg_errors',
  'fakegpio.output_is_disabled',
  'fakegpio.input_constant_makes_output',
  'fakegpio.constructor_errors',
  'fakegpio.objects_print_as_native',
  'slots.switch_slot_invalid',
  'slots.switch_slot_arg_errors',
  'slots.switch_slot_same_slot',
  'slots.nodes_save_bad_slot_returns_it',
  'slots.nodes_save_arg_errors',
  'slots.set_state_rejections',
  'slots.set_state_sloppy_json_accepted',
  'slots.set_state_arg_errors',
  'ui.oled_print_keyword_errors',
  'ui.switch_and_wheel_shapes',
  'connections.pad_names_are_not_nodes',
  'ui.overlay_negative_size_enomem',
]);

describe('firmware probes', () => {
  it('are well formed: unique ids, a source line each, sendable bytes', () => {
    expect(checkProbes(PROBES)).toEqual([]);
    expect(checkProbes([...PROBES, PROBES[0] as (typeof PROBES)[number]])).toContain(
      `${PROBES[0]?.id}: duplicate id`,
    );
  });

  it('are many, and cover every module area', () => {
    expect(PROBES.length).toBeGreaterThanOrEqual(80);
    const groups = new Set(PROBES.map((p) => p.group));
    for (const g of [
      'types',
      'connections',
      'power',
      'gpio',
      'pwm',
      'wavegen',
      'files',
      'slots',
      'repl',
      'ui',
    ]) {
      expect(groups).toContain(g);
    }
  });

  it('say they change the board whenever their code could (a read-only selftest must leave it as it was)', () => {
    const unflagged = PROBES.filter(
      (p) =>
        p.kind === 'exec' &&
        !p.mutates &&
        (MUTATOR.test(p.code) || FILE_WRITE.test(p.code)) &&
        !REVIEWED_READ_ONLY.has(p.id),
    ).map((p) => p.id);
    expect(unflagged).toEqual([]);
  });

  it('use on each release only the module names that release has (dir(jumperless) decides, not a version number)', () => {
    const everyName = new Set(FIRMWARE_VERSIONS.flatMap((v) => [...FIRMWARE[v].api]));
    const wrong: string[] = [];
    for (const p of PROBES) {
      if (p.kind !== 'exec') continue;
      // Names in string literals are data (a probe may check that a name is absent).
      const code = p.code.replace(/'[^'\n]*'|"[^"\n]*"/g, "''");
      const used = new Set((code.match(/\b[A-Za-z_][A-Za-z0-9_]*\b/g) ?? []).filter((w) => everyName.has(w)));
      for (const v of p.firmware) {
        const missing = [...used].filter((name) => !FIRMWARE[v].api.has(name));
        if (missing.length > 0) wrong.push(`${p.id} on ${v}: ${missing.join(', ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('cover every release, and cite the later release where they were checked against it', () => {
    for (const v of FIRMWARE_VERSIONS) expect(probesFor(v).length).toBeGreaterThanOrEqual(250);
    const later = probesFor('5.7.11.0').filter(citesLaterSource);
    expect(later.length).toBeGreaterThanOrEqual(20);
    // A probe only for 5.7.11 must cite a 5.7.11-era source.
    const uncited = PROBES.filter(
      (p) => p.firmware.length === 1 && p.firmware[0] === '5.7.11.0' && !citesLaterSource(p),
    );
    expect(uncited.map((p) => p.id)).toEqual([]);
    expect(
      checkProbes([{ ...(PROBES[0] as (typeof PROBES)[number]), firmware: ['9.9.9' as '5.7.11.0'] }]),
    ).toContain(`${PROBES[0]?.id}: unknown firmware 9.9.9`);
  });

  it('leave nothing in the reviewed list that no longer needs it', () => {
    const stale = [...REVIEWED_READ_ONLY].filter((id) => {
      const p = PROBES.find((q) => q.id === id);
      return p?.kind !== 'exec' || p.mutates || !(MUTATOR.test(p.code) || FILE_WRITE.test(p.code));
    });
    expect(stale).toEqual([]);
  });
});
