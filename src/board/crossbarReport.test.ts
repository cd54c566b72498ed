import { describe, expect, it } from 'vitest';
import { chipsOfNode, lanesBetween, TOPOLOGY } from './crossbar.js';
import { crossbarReport, laneCount, segmentsOfPathRecord } from './crossbarReport.js';
import { pathRecord, type RouteRequest, routePaths, usageOf } from './router.js';

/** Route requests with the router, and give each path as get_path_info would. */
function recorded(requests: RouteRequest[]) {
  const routing = routePaths(requests);
  const records = routing.paths.map((p) => ({
    node1: p.node1,
    node2: p.node2,
    net: p.net,
    ...pathRecord(p, [chipsOfNode(p.node1)[0] ?? -1, chipsOfNode(p.node2)[0] ?? -1]),
  }));
  return { routing, records };
}

describe('the crossbar report', () => {
  it('reads back from path records the same conductors the router took', () => {
    const { routing, records } = recorded([
      { node1: 1, node2: 40, net: 6 },
      { node1: 2, node2: 9, net: 7 },
      { node1: 3, node2: 70, net: 8 },
      { node1: 44, node2: 101, net: 2 },
    ]);
    routing.paths.forEach((p, i) => {
      expect(p.routed).toBe(true);
      expect(new Set(segmentsOfPathRecord(records[i] as (typeof records)[number]))).toEqual(
        new Set(p.segments),
      );
    });
    const report = crossbarReport(records, []);
    const usage = usageOf(routing);
    expect(report.lanes_used).toBe(usage.lanes.reduce((n, l) => n + l.used, 0));
    expect(report.lanes_used).toBeGreaterThan(0);
    expect(report.lanes_total).toBe(TOPOLOGY.segments.filter((s) => s.kind === 'lane').length);
    expect(report.chips).toHaveLength(12);
    expect(report.chips[0]).toMatchObject({ chip: 'A', kind: 'breadboard', x_lines: 16, y_lines: 8 });
    expect(report.chips[0]?.nodes).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(report.chips[0]?.y_lines_used).toBeGreaterThanOrEqual(3);
    expect(report.unrouted).toEqual([]);
  });

  it('says why a bridge is not routed, naming the chips and the direct lanes', () => {
    const report = crossbarReport(
      [],
      [
        { node1: 1, node2: 40, net: 6, route: 'no_free_lanes' },
        { node1: 101, node2: 102, net: null, route: 'not_in_a_net' },
        { node1: 5, node2: 6, net: 7, route: 'routed' },
      ],
    );
    expect(report.unrouted).toHaveLength(2);
    expect(report.unrouted[0]).toMatchObject({ node1: '1', node2: '40', net: 6, route: 'no_free_lanes' });
    expect(report.unrouted[0]?.why).toMatch(/chip A.*chip F/);
    expect(report.unrouted[0]?.why).toContain(`A-F 0/${laneCount('A', 'F')} in use`);
    expect(report.unrouted[1]?.why).toMatch(/two special nets/);
  });

  it('counts lanes per chip pair as the topology has them', () => {
    const report = crossbarReport([], []);
    for (const lane of report.lanes) {
      expect(lane.total).toBe(laneCount(lane.between[0], lane.between[1]));
      expect(lane.free).toBe(lane.total);
    }
    expect(laneCount('A', 'B')).toBe(lanesBetween(0, 1).length);
    expect(laneCount('A', 'B')).toBe(2);
  });

  it('ignores the -1 slots of an unrouted path', () => {
    const record = {
      node1: 1,
      node2: 40,
      net: 6,
      chips: [0, 5, -1, -1],
      x: [-1, -1, -1, -1, -1, -1],
      y: [-1, -1, -1, -1, -1, -1],
    };
    expect(segmentsOfPathRecord(record)).toEqual([]);
  });
});
