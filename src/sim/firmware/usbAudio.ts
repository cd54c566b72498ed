/**
 * USB audio (modjumperless.c@796c56c, the usb_audio_* wrappers): the arguments are checked and the
 * errors raised as the firmware does; the virtual board has no USB audio device, so enabling it
 * answers False (and says so on the main port) and the status reports it off.
 */
import { asInt, asNum, truthy } from './args.js';
import { type FirmwareFunctions, type FirmwareHost, PyError } from './types.js';

export function usbAudioGroup(host: FirmwareHost): FirmwareFunctions {
  const state = { left: 0, right: 1, fullScale: 8, dcBlock: true, rate: 16000 };
  const unavailable = (): boolean => {
    host.writeMain('[sim] USB audio is not available on the virtual board\n');
    return false;
  };
  const setRange = (v: number): void => {
    if (!(v >= 0.05 && v <= 20)) throw new PyError('ValueError', 'full scale must be 0.05-20.0 volts');
    state.fullScale = v;
  };
  return {
    usb_audio_setup: (left, right, fullScale, dcBlock) => {
      const l = asInt(left);
      const r = asInt(right);
      if (l === r || l < 0 || l > 7 || r < 0 || r > 7) {
        throw new PyError('ValueError', 'left/right must be distinct ADC channels 0-7');
      }
      if (fullScale !== null && fullScale !== undefined) {
        const v = asNum(fullScale);
        if (!(v >= 0.05 && v <= 20)) throw new PyError('ValueError', 'full_scale must be 0.05-20.0 volts');
        state.fullScale = v;
      }
      state.left = l;
      state.right = r;
      state.dcBlock = truthy(dcBlock);
      return unavailable();
    },
    usb_audio_enable: () => unavailable(),
    usb_audio_disable: () => false,
    usb_audio_is_enabled: () => false,
    usb_audio_set_range: (v) => {
      setRange(asNum(v));
      return true;
    },
    usb_audio_set_rate: (hz) => {
      const v = asInt(hz);
      if (v < 8000 || v > 48000 || v % 1000 !== 0) {
        throw new PyError('ValueError', 'rate must be 8000-48000 Hz in 1 kHz steps');
      }
      state.rate = v;
      return true;
    },
    usb_audio_save: () => null,
    usb_audio_status: () => ({
      enabled: false,
      streaming: false,
      host_open: false,
      left: state.left,
      right: state.right,
      full_scale: state.fullScale,
      dc_block: state.dcBlock,
      sample_rate: state.rate,
      pending_rate: state.rate,
      frames_sent: 0,
      fifo_overflow: 0,
      adc_overrun: 0,
      late_irq: 0,
      resyncs: 0,
      probe_pauses: 0,
      claim_fail: 0,
      init_fail: 0,
    }),
  };
}
