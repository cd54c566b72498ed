/**
 * Node arguments: a row number or a node name, checked against the board model (spec §6.2) before
 * anything is sent. The firmware does not validate integers and drops unknown ones silently (§6.1),
 * so only ids the model knows and `connect` accepts get through.
 */
import type { z } from 'zod';
import { isBridgeable, resolveNode, SUPPLY_3V3, SUPPLY_5V } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import { nodeArg } from './shapes.js';
import { nodeLabel } from './snapshot.js';

export { nodeArg };

export const NODE_HELP = 'row 1-60 or a name (GND, TOP_RAIL, DAC1, ADC0, ISENSE_PLUS, GPIO_1, D13, A0...)';

export type NodeArg = z.infer<typeof nodeArg>;

export interface ResolvedNode {
  id: number;
  name: string;
}

const shown = (arg: NodeArg): string => {
  const text = JSON.stringify(arg);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/** A routable node (one `connect` accepts), or a ToolError saying what to use instead. */
export function routableNode(arg: NodeArg): ResolvedNode {
  const id = resolveNode(arg);
  if (id === undefined) {
    throw new ToolError('invalid_node', `Unknown node ${shown(arg)}: use ${NODE_HELP}.`, {
      details: { node: arg },
    });
  }
  if (!isBridgeable(id)) {
    // The fixed 5 V and 3.3 V supplies have no crossbar lane on the V5: a rail set to the volts is the way.
    const supply =
      id === SUPPLY_5V || id === SUPPLY_3V3
        ? ` For ${id === SUPPLY_5V ? '5' : '3.3'} V, set a rail to it (dac_set channel TOP_RAIL) and connect to TOP_RAIL.`
        : '';
    throw new ToolError(
      'invalid_node',
      `Node ${shown(arg)} (${nodeLabel(id)}, id ${id}) cannot be routed through the crossbar: use ${NODE_HELP}.${supply}`,
      { details: { node: arg, id } },
    );
  }
  return { id, name: nodeLabel(id) };
}
