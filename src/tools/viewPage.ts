/**
 * The board in view as one self-contained HTML document (no CDN, no external request): the
 * picture (`board_picture`'s PNG, the one drawing of the board), the supplies, bridges, nets, the
 * latest readings tool calls made, the OLED's text, GPIO (all from the one state document) and a
 * running log of tool calls. The same document is the browser page (`GET /`, fed by the SSE
 * stream `/events`) and the MCP App (`ui://`, fed by the host with tool results and a resource
 * read of the view through the host). It shows; it never changes the board: the app's one
 * action is a person's answer to a hazard question the server asked (`confirm_answer`).
 */

/** Where the document gets its looks: `page` follows `/events`; `app` talks to its host. */
export type ViewMode = 'page' | 'app';

const STYLE = `
:root{color-scheme:light dark;font:14px/1.4 system-ui,sans-serif}
body{margin:0;padding:12px;background:Canvas;color:CanvasText}
header{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}
h1{font-size:16px;margin:0}
#status{font-size:12px;opacity:.75}
#supplies{display:flex;gap:16px;flex-wrap:wrap;margin:8px 0}
#supplies span{font-variant-numeric:tabular-nums}
img{max-width:100%;height:auto;border:1px solid #8884;background:#f2f0e8}
section{margin-top:10px}
h2{font-size:13px;margin:6px 0;text-transform:uppercase;letter-spacing:.05em;opacity:.8}
table{border-collapse:collapse;font-size:12px}
td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #8883}
.bad{color:#b00020}
ul{margin:0;padding-left:18px}
pre{margin:0;padding:6px 8px;background:#111;color:#7fd4ff;font:13px/1.3 ui-monospace,monospace;display:inline-block;min-width:21ch}
`;

/** Runs in the browser: turns a look into the document. Shared by both modes. */
const RENDER = `
const $ = (id) => document.getElementById(id);
const text = (el, value) => { el.textContent = value; };
const volts = (v) => (typeof v === 'number' ? v.toFixed(2) + ' V' : '?');
function render(look) {
  if (!look) return;
  const state = look.state || {};
  const power = state.power || {};
  text($('top_rail'), 'Top rail ' + volts(power.top_rail));
  text($('bottom_rail'), 'Bottom rail ' + volts(power.bottom_rail));
  text($('dac0'), 'DAC0 ' + volts(power.dac0));
  text($('dac1'), 'DAC1 ' + volts(power.dac1));
  if (look.picture) $('picture').src = 'data:image/png;base64,' + look.picture;
  const bridges = $('bridges');
  bridges.replaceChildren(...(state.bridges || []).map((b) => {
    const li = document.createElement('li');
    // 'unknown': read from the telemetry port, which lists nets but not whether lanes were found.
    const fine = b.routed || b.route === 'unknown';
    li.textContent = b.node1_name + ' \\u2013 ' + b.node2_name + (fine ? '' : ' (not routed: ' + b.route + ')');
    if (!fine) li.className = 'bad';
    return li;
  }));
  const nets = $('nets');
  nets.replaceChildren(...(state.nets || []).filter((n) => n.nodes.length > 0).map((n) => {
    const li = document.createElement('li');
    li.textContent = n.index + ' ' + n.name + (typeof n.voltage === 'number' ? ' ' + volts(n.voltage) : '') + ': ' + n.nodes.join(', ');
    return li;
  }));
  const gpio = $('gpio');
  gpio.replaceChildren(...(state.gpio || []).map((g) => {
    const tr = document.createElement('tr');
    for (const v of [g.pin, g.direction, g.reading, g.pull]) {
      const td = document.createElement('td');
      td.textContent = String(v);
      tr.append(td);
    }
    return tr;
  }));
  const readings = $('readings');
  readings.replaceChildren(...(state.readings || []).map((r) => {
    const li = document.createElement('li');
    li.textContent = r.time.slice(11, 19) + ' ' + r.what + ' ' + (r.unit === 'V' ? r.value.toFixed(3) + ' V' : r.value.toFixed(2) + ' mA') + ' (' + r.tool + ')';
    return li;
  }));
  text($('oled'), state.oled === undefined ? '(nothing shown by a tool yet)' : state.oled === '' ? '(cleared)' : state.oled);
  text($('status'), (look.error ? 'could not read the board: ' + look.error + ' \\u00b7 ' : '') +
    'look ' + look.seq + ' at ' + look.time.slice(11, 19) + (look.after ? ' after ' + look.after : '') +
    (look.source ? ' \\u00b7 read ' + (look.source === 'repl' ? 'at the REPL' : 'on ' + look.source) : ''));
  document.body.dataset.seq = String(look.seq);
}
function logCall(event) {
  const tr = document.createElement('tr');
  for (const v of [event.time.slice(11, 19), event.caller, event.tool, event.outcome + (event.code ? ' (' + event.code + ')' : ''), Math.round(event.durationMs) + ' ms']) {
    const td = document.createElement('td');
    td.textContent = v;
    tr.append(td);
  }
  if (event.outcome !== 'ok') tr.className = 'bad';
  const log = $('log');
  log.prepend(tr);
  while (log.children.length > 200) log.lastChild.remove();
}
`;

/** The page: follows `/events` (fetch, so a bearer from the URL's fragment rides in a header). */
const PAGE = `
const token = new URLSearchParams(location.hash.slice(1)).get('token');
async function follow() {
  try {
    const res = await fetch('/events', { headers: token ? { authorization: 'Bearer ' + token } : {} });
    if (!res.ok) throw new Error('HTTP ' + res.status);
    text($('live'), 'live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\\n\\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        let data = '';
        for (const line of block.split('\\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (name === 'board') render(JSON.parse(data));
        else if (name === 'call') logCall(JSON.parse(data));
      }
    }
    throw new Error('stream ended');
  } catch (error) {
    text($('live'), 'reconnecting (' + error.message + ')');
    setTimeout(follow, 2000);
  }
}
follow();
`;

/**
 * The app (MCP Apps, SEP-1865): JSON-RPC over postMessage with its host. It says hello
 * (ui/initialize), then shows a look whenever one arrives: in the tool result the host hands it
 * (its structuredContent or resource link aside, the host may pass the look itself), or by reading
 * the view resource through the host after each result.
 */
const APP = `
let nextId = 1;
const pending = new Map();
function request(method, params) {
  const id = nextId++;
  window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
let seq = 0;
async function fetchLook() {
  try {
    const [state, picture] = await Promise.all([
      request('resources/read', { uri: STATE_URI }),
      request('resources/read', { uri: PICTURE_URI }),
    ]);
    const json = state.contents[0].text;
    render({ seq: ++seq, time: new Date().toISOString(), state: JSON.parse(json), picture: picture.contents[0].blob });
    text($('live'), 'in the chat');
  } catch (error) {
    text($('live'), 'could not read the board: ' + (error.message || error));
  }
}
window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== '2.0') return;
  if (message.id !== undefined && pending.has(message.id)) {
    const { resolve, reject } = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) reject(new Error(message.error.message)); else resolve(message.result);
    return;
  }
  if (message.method === 'ui/notifications/tool-input') watchQuestions();
  if (message.method === 'ui/notifications/tool-result') {
    stopWatching();
    // A host that cannot ask itself gets the question as the call's result: the form shows it here.
    const waiting = pendingQuestion(message.params);
    if (waiting) showQuestion({ ...waiting, fromResult: true });
    const look = message.params && message.params._meta && message.params._meta[LOOK_META];
    if (look) render(look); else fetchLook();
  }
});
function pendingQuestion(result) {
  try {
    const failure = JSON.parse(result.content[0].text);
    return failure.code === 'confirmation_pending' ? failure.question : undefined;
  } catch {
    return undefined;
  }
}
// While a call runs, the server may ask the person's yes before a hazard: the form answers that
// question by the id the server issued (confirm_answer, a tool only this app may call), nothing else.
let watching;
let asked;
function stopWatching() {
  clearInterval(watching);
  watching = undefined;
  showQuestion(undefined);
}
function showQuestion(q) {
  asked = q;
  $('ask').hidden = !q;
  text($('question'), q ? q.question : '');
}
async function checkQuestions() {
  try {
    const result = await request('tools/call', { name: 'confirm_answer', arguments: {} });
    const open = (result.structuredContent && result.structuredContent.questions) || [];
    if (!asked || !open.some((q) => q.id === asked.id)) showQuestion(open[0]);
  } catch {}
}
function watchQuestions() {
  if (watching) return;
  watching = setInterval(checkQuestions, 500);
  setTimeout(stopWatching, 5 * 60_000);
  checkQuestions();
}
// The call's result was the question (a host that cannot ask): the model must make the call again,
// so the person's answer goes to the chat, in their words (ui/message), or at least into the
// model's context (ui/update-model-context) where the host takes no messages. A question seen while
// the call is still the host's (its own dialog open, a 2026-07-28 round) needs no word to the model:
// the host's retry takes the answer.
async function tellModel(q, yes) {
  const words = yes
    ? 'I said yes in the board view to: ' + q.question + ' Call ' + q.tool + ' again with the same arguments now.'
    : 'I said no in the board view to: ' + q.question + ' Do not run ' + q.tool + '.';
  const content = [{ type: 'text', text: words }];
  const how = hostCapabilities.message ? 'message' : hostCapabilities.updateModelContext ? 'context' : 'none';
  try {
    if (how === 'message') await request('ui/message', { role: 'user', content });
    else if (how === 'context') await request('ui/update-model-context', { content });
    document.body.dataset.told = how;
  } catch (error) {
    document.body.dataset.told = 'failed';
    text($('answered'), $('answered').textContent + ' (tell the model yourself: ' + words + ')');
  }
}
async function answer(yes) {
  if (!asked) return;
  const q = asked;
  clearInterval(watching);
  watching = undefined;
  showQuestion(undefined);
  try {
    const result = await request('tools/call', { name: 'confirm_answer', arguments: { question: q.id, answer: yes ? 'yes' : 'no' } });
    if (result.isError) {
      text($('answered'), 'not counted: ' + result.content[0].text);
      return;
    }
    const retry = result.structuredContent && result.structuredContent.next === 'retry';
    const then = retry ? ': ' + q.tool + (yes ? ' runs when called again' : ' is refused when called again') : '';
    text($('answered'), 'answered ' + (yes ? 'yes' : 'no') + then);
    if (retry && q.fromResult) await tellModel(q, yes);
  } catch (error) {
    text($('answered'), 'not sent: ' + (error.message || error));
  }
}
$('yes').addEventListener('click', () => answer(true));
$('no').addEventListener('click', () => answer(false));
let hostCapabilities = {};
request('ui/initialize', { appInfo: { name: 'jumperless-board', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' })
  .then((result) => {
    hostCapabilities = (result && result.hostCapabilities) || {};
    window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*');
    return fetchLook();
  })
  .catch((error) => text($('live'), 'no host: ' + (error.message || error)));
`;

const STATE_URI = 'jumperless://board/state';
const PICTURE_URI = 'jumperless://board/picture';

/** The MCP App: tools that change or read the board point at it (`_meta.ui.resourceUri`). */
export const BOARD_APP_URI = 'ui://jumperless/board';
/** MCP Apps' resource type (SEP-1865). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The `_meta` key under which a tool result may carry the look itself. */
export const LOOK_META = 'io.github.jumperless-mcp/look';

/** Text that may go into a `<script>` as a JS literal, with nothing that closes the element. */
const scriptLiteral = (value: unknown): string => JSON.stringify(value ?? null).replace(/</g, '\\u003c');

/** `app`: the state and picture resources it reads through the host (a bench's carry the device). */
export function viewDocument(mode: ViewMode, uris = { state: STATE_URI, picture: PICTURE_URI }): string {
  const script =
    mode === 'page'
      ? RENDER + PAGE
      : `const STATE_URI = ${scriptLiteral(uris.state)};\nconst PICTURE_URI = ${scriptLiteral(uris.picture)};\nconst LOOK_META = ${scriptLiteral(LOOK_META)};\n${RENDER}${APP}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Jumperless V5</title><style>${STYLE}</style></head>
<body>
<header><h1>Jumperless V5</h1><span id="live">connecting</span><span id="status"></span></header>
${mode === 'app' ? '<section id="ask" hidden><h2>Your yes, please</h2><p id="question"></p><button id="yes">Yes, go ahead</button> <button id="no">No</button></section><p id="answered"></p>' : ''}
<div id="supplies"><span id="top_rail"></span><span id="bottom_rail"></span><span id="dac0"></span><span id="dac1"></span></div>
<img id="picture" alt="The breadboard: rows in their LED colours, bridges, rails with voltages, nets">
<section><h2>Bridges</h2><ul id="bridges"></ul></section>
<section><h2>Nets</h2><ul id="nets"></ul></section>
<section><h2>Latest readings</h2><ul id="readings"></ul></section>
<section><h2>OLED</h2><pre id="oled"></pre></section>
<section><h2>GPIO</h2><table><thead><tr><th>pin</th><th>direction</th><th>reading</th><th>pull</th></tr></thead><tbody id="gpio"></tbody></table></section>
${mode === 'page' ? '<section><h2>Tool calls</h2><table><thead><tr><th>time</th><th>caller</th><th>tool</th><th>outcome</th><th>took</th></tr></thead><tbody id="log"></tbody></table></section>' : '<tbody id="log" hidden></tbody>'}
<script>${script}</script>
</body></html>
`;
}
