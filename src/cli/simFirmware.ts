import { FIRMWARE_VERSIONS, type FirmwareVersion, parseFirmwareVersion } from '../board/firmware.js';
import { DeviceError } from '../device/errors.js';

/** A release the virtual board runs, from `--firmware` or `sim@<release>`; refuses an unknown one. */
export function simFirmware(text: string): FirmwareVersion {
  const release = parseFirmwareVersion(text);
  if (release === undefined) {
    throw new DeviceError(
      'not_found',
      `the virtual board runs firmware ${FIRMWARE_VERSIONS.join(' or ')}, not "${text}"`,
    );
  }
  return release;
}
