/**
 * The firmware releases we know, as data: what `dir(jumperless)` lists on each and how each behaves
 * where a host can tell, every fact with the source line that says so. The virtual board runs any
 * of them; the probes say which ones they hold for.
 *
 * Decide by what a board has, never by comparing version numbers: the numbers are not monotonic
 * (a 5.8.0 tag of 2026-08-26 predates 5.7.8.1: Architeuthis-Flux/JumperlOS@3f7d788
 * CodeDocs/RELEASE_5781_HANDOFF_2026-08-28.md), and builds between releases carry any mix of
 * features. So this module names releases exactly and offers no ordering.
 */
import {
  API_5_7_0_13,
  LOGIC_ANALYZER_API,
  PARTS_AND_BACKGROUND_API,
  SCAN_AND_AUDIO_API,
} from './firmwareApi.js';

export const FIRMWARE_VERSIONS = ['5.7.0.13', '5.7.11.0'] as const;
export type FirmwareVersion = (typeof FIRMWARE_VERSIONS)[number];
/** What the virtual board runs unless told otherwise: the release boards ship with now. */
export const NEWEST_FIRMWARE: FirmwareVersion = '5.7.11.0';

/** Host-visible behaviour that differs between releases (or that a host must know the size of). */
export interface FirmwareBehaviour {
  /** get_state() leaves out nets with fewer than two nodes (the supply nets nothing is wired to). */
  readonly stateSkipsLonelyNets: boolean;
  /**
   * How get_state() writes net names: `quote-newline` escapes only `"`, LF and CR; `bounded` also
   * escapes `\` and tab, trims spaces, keeps at most 31 bytes and drops anything not printable ASCII.
   */
  readonly stateNameEscape: 'quote-newline' | 'bounded';
  /** Nets 0..namedNets-1 have a default name (`Net N`); a higher net has none (get_net_name: None). */
  readonly namedNets: number;
  /** A new net takes the first free index below this (findFirstUnusedNetIndex). */
  readonly netIndexLimit: number;
  /** The menu's `x` (clear all) also removes the placed parts. */
  readonly clearRemovesParts: boolean;
  /** Raw-REPL traffic counts as user input, holding off the slot autosave's quiet window. */
  readonly replTrafficHoldsAutosave: boolean;
  /** The MicroPython GC heap without PSRAM, as `gc` reports it. */
  readonly heapBytesNoPsram: number;
  /** Undo transactions the ring holds, without and with PSRAM. */
  readonly undoTransactions: { readonly sram: number; readonly psram: number };
  /** Newest transactions kept in the undo file across a reboot, without and with PSRAM. */
  readonly undoPersisted: { readonly sram: number; readonly psram: number };
  readonly undoFile: string;
  /** Same-channel supply changes closer than this merge into one undo step. */
  readonly supplyUndoMergeMs: number;
  /** About how long one slot save stalls the board (the virtual board does not wait). */
  readonly slotSaveMs: number;
}

export interface FirmwareProfile {
  readonly version: FirmwareVersion;
  /** When the release was cut. */
  readonly released: string;
  /** Where its source can be read; `read` says how (a whole repository, or file by file). */
  readonly source: { readonly repository: string; readonly commit: string; readonly read: string };
  /** What `dir(jumperless)` lists, without the module's own `__name__`, `__dict__`, `__class__`. */
  readonly api: ReadonlySet<string>;
  readonly behaviour: FirmwareBehaviour;
  /** Per behaviour, the source that says so. */
  readonly sources: { readonly [K in keyof FirmwareBehaviour]: string };
}

const API_5_7_11 = new Set([
  ...API_5_7_0_13.filter((name) => !LOGIC_ANALYZER_API.includes(name)),
  ...SCAN_AND_AUDIO_API,
  ...PARTS_AND_BACKGROUND_API,
]);

const F = 'map588/JumperlOS@1384da4';
const U = 'Architeuthis-Flux/JumperlOS';

export const FIRMWARE: { readonly [V in FirmwareVersion]: FirmwareProfile } = {
  '5.7.0.13': {
    version: '5.7.0.13',
    released: '2026-06-27',
    source: { repository: 'map588/JumperlOS', commit: '1384da4', read: 'whole repository (fetch)' },
    api: new Set(API_5_7_0_13),
    behaviour: {
      stateSkipsLonelyNets: false,
      stateNameEscape: 'quote-newline',
      namedNets: 50,
      netIndexLimit: 60,
      clearRemovesParts: false,
      replTrafficHoldsAutosave: false,
      heapBytesNoPsram: 96_000,
      undoTransactions: { sram: 128, psram: 4096 },
      undoPersisted: { sram: 24, psram: 256 },
      undoFile: '/undo_history.txt',
      supplyUndoMergeMs: 1200,
      slotSaveMs: 2000,
    },
    sources: {
      stateSkipsLonelyNets: `${F} src/JsonState.cpp:85-101 (every allocated net, the seed-only supply nets included)`,
      stateNameEscape: `${F} src/JsonState.cpp:30-35, 99-101`,
      namedNets: `${F} src/MatrixState.cpp:29 (netNameConstants initialises "Net 0".."Net 49"; 50-59 are NULL)`,
      netIndexLimit: `${F} src/NetManager.cpp:947-961 (i < MAX_NETS)`,
      clearRemovesParts: `${F} modules/jumperless/modjumperless.c:6029-6570 (no parts layer)`,
      replTrafficHoldsAutosave: `${F} src/main.cpp:1084-1091, src/externVars.cpp:230-247 (only menu-port input calls noteUserInput)`,
      heapBytesNoPsram: `${F} src/JumperlessDefines.h:41-42 (96 KB; 6000 blocks of 16 bytes after the tables, py/gc.c:146-191)`,
      undoTransactions: `${F} src/Undo.cpp:1575-1587`,
      undoPersisted: `${F} src/Undo.cpp:1597-1603`,
      undoFile: `${F} src/Undo.cpp:734`,
      supplyUndoMergeMs: `${F} src/States.cpp:986-1019, src/Undo.cpp:155, 2172-2212`,
      slotSaveMs: 'shared/spec/jumperless-v5.md §9 (a FatFS flush takes about 2 s); not measured on 5.7.0.13',
    },
  },
  '5.7.11.0': {
    version: '5.7.11.0',
    released: '2026-09-07',
    source: {
      repository: U,
      commit: 'f2f4137',
      read: 'file by file; the index holds newer copies of some files than others (each citation names its commit)',
    },
    api: API_5_7_11,
    behaviour: {
      stateSkipsLonelyNets: true,
      stateNameEscape: 'bounded',
      namedNets: 60,
      netIndexLimit: 58,
      clearRemovesParts: true,
      replTrafficHoldsAutosave: true,
      heapBytesNoPsram: 64_000,
      undoTransactions: { sram: 64, psram: 4096 },
      undoPersisted: { sram: 24, psram: 256 },
      undoFile: '/undo_history.txt',
      supplyUndoMergeMs: 1200,
      slotSaveMs: 1800,
    },
    sources: {
      stateSkipsLonelyNets: `${U}@68195a0 src/routing/JsonState.cpp getJumperlessStateJSON ("if (nodeCount < 2) continue"); CodeDocs/DEV_MERGE_HANDOFF.md@03022d3 row 2 (ecd23e2)`,
      stateNameEscape: `${U}@68195a0 src/routing/JsonState.cpp escapeJson(const char*, size_t), name escaped at 31; DEV_MERGE_HANDOFF.md@03022d3 row 1 (caa413c)`,
      namedNets: `${U}@7077df9 src/routing/MatrixState.cpp netNameConstants ("Net 0".."Net 59")`,
      netIndexLimit: `${U}@020f59a src/routing/NetManager.cpp findFirstUnusedNetIndex (i < MAX_NETS - 2: nets 58 and 59 are the router's sentinels)`,
      clearRemovesParts: `${U}@ad0f1d9 CodeDocs/HANDOFF_2026-09-07_DOCS_SWEEP.md ("x (and Parts > Clear) runs partsClearAllRecords()"); CodeDocs/RELEASE_5781_HANDOFF_2026-08-28.md@3f7d788`,
      replTrafficHoldsAutosave:
        'SophisticaSean/JumperlOS@d66858f src/snakes/MpRemoteService.cpp (noteUserInput() after every raw-REPL ' +
        'batch, the public fork of the release line); shared/spec/field-2026-12.md §1.2; not in the stored ' +
        `${U}@8abe273 and @020f59a src/snakes/MpRemoteService.cpp nor @e6ef352 src/MpRemoteService.cpp`,
      heapBytesNoPsram: `${U}@ad0f1d9 CodeDocs/HANDOFF_2026-09-07_DOCS_SWEEP.md ("MICROPY_HEAP_SIZE 64*1024"); ${U}@8abe273 src/snakes/MpRemoteService.cpp constructor ("its configured 64 KB"); 4000 blocks after the tables as py/gc.c:146-191 lays out`,
      undoTransactions: `${U}@7077df9 src/remembering/Undo.cpp undoInit (SRAM ring halved to 256 ops / 64 txns)`,
      undoPersisted: `${U}@7077df9 src/remembering/Undo.cpp undoInit (g_persistMaxTxns 24 / 256)`,
      undoFile: `${U}@7077df9 src/remembering/Undo.cpp undoInit ("replaced by /undo_history.txt"); HANDOFF_2026-09-07_DOCS_SWEEP.md@ad0f1d9`,
      supplyUndoMergeMs: `${U}@7077df9 src/remembering/Undo.cpp (DAC_SLIDE_COALESCE_MS = 1200)`,
      slotSaveMs: `${U}@03022d3 CodeDocs/DEV_MERGE_HANDOFF.md (T1.6 measure: "slot save 1.8 s")`,
    },
  },
};

/** The profile of exactly this version, if we know it (no nearest match: numbers are not ordered). */
export function knownFirmware(version: string | undefined): FirmwareProfile | undefined {
  return (FIRMWARE_VERSIONS as readonly string[]).includes(version ?? '')
    ? FIRMWARE[version as FirmwareVersion]
    : undefined;
}

/** Parses `--firmware`; undefined for an unknown version (the caller lists the known ones). */
export function parseFirmwareVersion(text: string): FirmwareVersion | undefined {
  const v = text.trim().replace(/^v/i, '');
  const exact = FIRMWARE_VERSIONS.find((f) => f === v);
  if (exact) return exact;
  // `5.7.11` names the release 5.7.11.0.
  return FIRMWARE_VERSIONS.find((f) => f === `${v}.0`);
}

/**
 * The releases whose API matches what a board lists, best first: a board is recognised by its
 * functions, so a build between releases, or one with a version string we do not know, still finds
 * the release it behaves like. Empty when nothing matches closely.
 */
export function firmwareLike(functions: ReadonlySet<string>): FirmwareVersion[] {
  const scored = FIRMWARE_VERSIONS.map((v) => {
    const api = FIRMWARE[v].api;
    let differ = 0;
    for (const name of api) if (!functions.has(name)) differ++;
    for (const name of functions) if (!api.has(name)) differ++;
    return { v, differ };
  }).filter((s) => s.differ <= 20);
  return scored.sort((a, b) => a.differ - b.differ).map((s) => s.v);
}

/**
 * Why a board lacks functions a tool needs, in words a user can act on, decided by the names alone:
 * the logic analyzer was taken out of the firmware; the scan, audio and parts functions came later.
 */
export function missingFunctionsReason(missing: readonly string[]): string {
  const all = (list: readonly string[]) => missing.every((name) => list.includes(name));
  if (missing.length > 0 && all(LOGIC_ANALYZER_API)) {
    return 'This firmware has no logic analyzer (5.7.11 took the la_* functions out), so this cannot run on it.';
  }
  if (missing.length > 0 && all([...SCAN_AND_AUDIO_API, ...PARTS_AND_BACKGROUND_API])) {
    return 'These came with newer JumperlOS releases (5.7.11 has them): update the Jumperless firmware and try again.';
  }
  return 'Update the Jumperless firmware (JumperlOS 5.7 or later) and try again.';
}
