/**
 * Test fixture: fills the board's crossbar with seeded random row-to-row bridges until one cannot
 * be routed (bench/wiringStress.ts does the same to measure), then takes that last bridge out again,
 * so the caller can ask for it through a tool and see what the tool says. Python for the board's
 * raw REPL; returns `[a, b]`, the rows of the bridge that did not fit.
 */
export function fillCrossbarPython(seed = 1): string {
  return `
def _jlt_fill(seed):
    s = seed
    done = set()
    for _ in range(4000):
        s = (s * 1103515245 + 12345) & 0x7fffffff
        a = (s >> 8) % 60 + 1
        s = (s * 1103515245 + 12345) & 0x7fffffff
        b = (s >> 8) % 60 + 1
        k = (min(a, b), max(a, b))
        if a == b or k in done:
            continue
        done.add(k)
        connect(a, b)
        p = get_path_between(a, b)
        if p is not None and (p['x'][0] < 0 or p['y'][0] < 0 or p['x'][1] < 0 or p['y'][1] < 0):
            disconnect(a, b)
            return [a, b]
    return None
nodes_clear()
print(_jlt_fill(${seed}))
`;
}
