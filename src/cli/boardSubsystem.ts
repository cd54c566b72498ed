/** A board as a subsystem: the catalog bound to it, its resources and prompts, its link's events as logs. */
import { type OpenedBoard, ToolSubsystem } from '../core/toolSubsystem.js';
import { catalog } from '../tools/index.js';
import { prompts as boardPrompts } from '../tools/prompts.js';
import { boardResourcesFor } from '../tools/resources.js';
import type { SafetyPolicy } from '../tools/safety.js';
import { describeBoardEvent, type ServedBoard } from './board.js';

export function boardSubsystem(
  name: string,
  device: string,
  safety: SafetyPolicy,
  open: (device: string) => Promise<ServedBoard>,
  options: { ring?: string; leaseName?: string } = {},
): ToolSubsystem {
  return new ToolSubsystem({
    name,
    ...(options.ring ? { ring: options.ring } : {}),
    ...(options.leaseName !== undefined ? { leaseName: options.leaseName } : {}),
    tools: catalog,
    safety,
    prompts: boardPrompts,
    resources: boardResourcesFor,
    board: {
      device,
      open: async (): Promise<OpenedBoard> => {
        const board = await open(device);
        return {
          board: board.client,
          health: () => board.session?.health(),
          onLog: (listener) =>
            board.onEvent((event) => {
              const message = describeBoardEvent(event);
              if (message) listener(message.level, message.text);
            }),
          close: () => board.close(),
        };
      },
    },
  });
}
