// The live page: polls api/hotkeys every second and redraws. Keys are user data, so every text goes
// into the page through textContent or an attribute, never as markup.
"use strict";

const HISTORY_MILLIS = 5 * 60 * 1000;
const CHART_KEYS = 5;
const COLORS = ["#0b6bcb", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c"];
const SVG = "http://www.w3.org/2000/svg";

const state = {
  report: null,
  sort: { column: "rate", descending: true },
  series: new Map(), // key -> [{time, rate}], oldest first
  threshold: 0,
};

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  return node;
}

function byId(id) {
  return document.getElementById(id);
}

function setText(id, text) {
  byId(id).textContent = text;
}

function number(value, digits) {
  if (value === null || value === undefined) return "–";
  return value.toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
}

function percent(ratio) {
  return ratio === null || ratio === undefined ? "–" : (100 * ratio).toFixed(1) + " %";
}

function bytes(count) {
  const units = ["B", "KB", "MB", "GB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
}

function duration(millis) {
  const seconds = Math.max(0, Math.round(millis / 1000));
  if (seconds < 60) return seconds + "s";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return minutes + "m " + (seconds % 60) + "s";
  return Math.floor(minutes / 60) + "h " + (minutes % 60) + "m";
}

function clock(millis) {
  return new Date(millis).toLocaleTimeString("en-GB", { hour12: false });
}

function rows(tbodyParent, entries) {
  const body = tbodyParent.tBodies[0];
  body.replaceChildren(
    ...entries.map(([label, value]) => {
      const row = el("tr");
      row.append(el("td", label), el("td", value));
      return row;
    })
  );
}

function renderSummary(report) {
  const agent = report.agent;
  setText(
    "agent",
    "version " + agent.version + " · pid " + agent.pid + " · up " + duration(agent.time - agent.startedAt) + " · scope " + report.scope
  );
  setText("saved-rate", number(report.redis.savedPerSecond) + " /s");
  setText("saved-total", number(report.redis.saved) + " since start");
  const commands = report.commands;
  const perSecond = commands.readsPerSecond === null ? null : commands.readsPerSecond + commands.writesPerSecond;
  setText("commands-rate", number(perSecond) + " /s");
  setText("commands-total", number(commands.reads) + " reads, " + number(commands.writes) + " writes");
  const cache = report.cache;
  setText("hit-ratio", cache.enabled ? percent(cache.hitRatio) : "off");
  setText("cache-size", number(cache.entries) + " entries, " + bytes(cache.bytes) + " of " + bytes(cache.maxBytes));
  setText("hot-count", number(report.hotKeys.length));
  setText("threshold", "threshold " + number(report.detector.threshold) + " /s, top " + report.detector.topK);
  setText("agent-errors", number(report.agentErrors));
  var tracked = report.tracking.servers.length
    ? ", " + report.tracking.servers.join(", ") + ", " + number(report.tracking.invalidations) + " invalidated"
    : "";
  setText("tracking", "freshness: " + report.tracking.mode + " " + duration(report.tracking.ttlMillis) + tracked);
  setText("instrumentation", report.instrumentation.length ? "clients: " + report.instrumentation.join("; ") : "");
}

function compare(a, b, column) {
  const x = a[column];
  const y = b[column];
  if (x === y) return 0;
  if (x === null || x === undefined) return 1;
  if (y === null || y === undefined) return -1;
  return typeof x === "string" ? x.localeCompare(y) : x - y;
}

function renderHotKeys(report) {
  const { column, descending } = state.sort;
  const keys = report.hotKeys.slice().sort((a, b) => (descending ? -1 : 1) * compare(a, b, column));
  const table = byId("hot-keys");
  for (const th of table.tHead.rows[0].cells) {
    th.setAttribute("aria-sort", th.dataset.sort === column ? (descending ? "descending" : "ascending") : "none");
  }
  table.tBodies[0].replaceChildren(
    ...keys.map((key) => {
      const row = el("tr");
      row.dataset.key = key.key;
      row.dataset.rate = String(key.rate);
      const since = key.promotedAt === null ? "–" : clock(key.promotedAt) + " (" + duration(report.agent.time - key.promotedAt) + ")";
      const keyCell = el("td", key.key + (key.truncated ? " … (" + key.keyLength + " bytes)" : ""), "key");
      if (key.writeHot) {
        const badge = el("span", "write-hot", "write-hot");
        badge.title = "written at the write threshold's rate: never served locally; consider splitting it (N sub-keys, writes routed by hash, reads summed)";
        keyCell.append(" ", badge);
      }
      row.append(
        keyCell,
        el("td", number(key.rate), "num rate"),
        el("td", percent(key.readShare), "num"),
        el("td", number(key.reads), "num"),
        el("td", number(key.writes), "num"),
        el("td", percent(key.hitRatio), "num hit-ratio"),
        el("td", key.hits === null ? "–" : number(key.hits) + " / " + number(key.misses), "num hits"),
        el("td", key.scope),
        el("td", since)
      );
      return row;
    })
  );
  byId("no-hot-keys").hidden = keys.length > 0;
}

function renderCache(report) {
  const cache = report.cache;
  rows(byId("cache"), [
    ["Local serving", cache.enabled ? "on" : "off"],
    ["Redis commands saved", number(report.redis.savedPerSecond) + " /s (" + number(report.redis.saved) + " in all)"],
    ["Hits / misses", number(cache.hits) + " / " + number(cache.misses)],
    ["Hits / misses per second", number(cache.hitsPerSecond) + " / " + number(cache.missesPerSecond)],
    ["Hit ratio since start", percent(cache.hitRatio)],
    ["Entries", number(cache.entries)],
    ["Size", bytes(cache.bytes) + " of " + bytes(cache.maxBytes)],
    ["Evictions", number(cache.evictions)],
  ]);
  const idempotency = report.idempotency;
  rows(
    byId("idempotency"),
    idempotency.enabled
      ? Object.entries(idempotency.outcomes).map(([outcome, count]) => [outcome.replace(/_/g, " "), number(count)])
      : [["Routes", "none configured (hotkey.idempotency.routes)"]]
  );
}

function renderConfig(report) {
  const body = byId("config").tBodies[0];
  body.replaceChildren(
    ...report.config.map((entry) => {
      const row = el("tr");
      row.append(el("td", entry.key, "key"), el("td", entry.value === "" ? '""' : entry.value), el("td", entry.source, "muted"));
      return row;
    })
  );
}

function addPoint(time, key, rate) {
  let points = state.series.get(key);
  if (!points) {
    points = [];
    state.series.set(key, points);
  }
  points.push({ time, rate });
}

function prune(now) {
  for (const [key, points] of state.series) {
    while (points.length && points[0].time < now - HISTORY_MILLIS) points.shift();
    if (!points.length) state.series.delete(key);
  }
}

function renderChart(now) {
  const chart = byId("chart");
  const width = 900;
  const height = 260;
  const left = 56;
  const right = 12;
  const top = 12;
  const bottom = 28;
  const latest = (points) => points[points.length - 1];
  const shown = [...state.series.entries()]
    .filter(([, points]) => latest(points).time >= now - 2500)
    .sort((a, b) => latest(b[1]).rate - latest(a[1]).rate)
    .slice(0, CHART_KEYS);
  let max = state.threshold;
  for (const [, points] of shown) for (const p of points) max = Math.max(max, p.rate);
  max = max > 0 ? max * 1.15 : 1;
  const x = (time) => left + ((time - (now - HISTORY_MILLIS)) / HISTORY_MILLIS) * (width - left - right);
  const y = (rate) => top + (1 - rate / max) * (height - top - bottom);
  const nodes = [];
  for (let i = 0; i <= 4; i++) {
    const rate = (max * i) / 4;
    nodes.push(svg("line", { class: "grid", x1: left, x2: width - right, y1: y(rate), y2: y(rate) }));
    const label = svg("text", { class: "axis", x: left - 6, y: y(rate) + 4, "text-anchor": "end" });
    label.textContent = number(rate);
    nodes.push(label);
  }
  for (let minute = 5; minute >= 0; minute--) {
    const label = svg("text", { class: "axis", x: x(now - minute * 60000), y: height - 8, "text-anchor": "middle" });
    label.textContent = minute === 0 ? "now" : "-" + minute + "m";
    nodes.push(label);
  }
  if (state.threshold > 0) {
    nodes.push(svg("line", { class: "threshold", x1: left, x2: width - right, y1: y(state.threshold), y2: y(state.threshold) }));
  }
  const legend = [];
  shown.forEach(([key, points], index) => {
    const color = COLORS[index % COLORS.length];
    // a gap of more than a few seconds (the key was not hot) breaks the line
    let path = "";
    let previous = null;
    for (const p of points) {
      path += (previous === null || p.time - previous > 3000 ? "M" : "L") + x(p.time).toFixed(1) + " " + y(p.rate).toFixed(1) + " ";
      previous = p.time;
    }
    const line = svg("path", { class: "series", d: path.trim(), stroke: color });
    line.dataset.key = key;
    const title = svg("title");
    title.textContent = key;
    line.append(title);
    nodes.push(line);
    const item = el("li");
    const swatch = el("span", null, "swatch");
    swatch.style.background = color;
    item.append(swatch, document.createTextNode(key + "  " + number(latest(points).rate) + " /s"));
    legend.push(item);
  });
  chart.replaceChildren(...nodes);
  byId("legend").replaceChildren(...legend);
}

function setConnection(live, text) {
  const badge = byId("connection");
  badge.textContent = text;
  badge.className = "connection " + (live ? "live" : "lost");
}

async function fetchJson(path) {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(path + ": HTTP " + response.status);
  return response.json();
}

async function loadHistory() {
  try {
    const history = await fetchJson("api/history");
    state.threshold = history.threshold;
    for (const point of history.points) for (const key of point.keys) addPoint(point.time, key.key, key.rate);
  } catch (e) {
    // the chart then starts empty and fills from the polls
  }
}

function render() {
  const report = state.report;
  renderSummary(report);
  renderHotKeys(report);
  renderCache(report);
  renderConfig(report);
  renderChart(report.agent.time);
}

async function poll() {
  try {
    const report = await fetchJson("api/hotkeys");
    state.report = report;
    state.threshold = report.detector.threshold;
    for (const key of report.hotKeys) addPoint(report.agent.time, key.key, key.rate);
    prune(report.agent.time);
    render();
    document.body.dataset.updates = String(Number(document.body.dataset.updates) + 1);
    setConnection(true, "live · " + clock(report.agent.time));
  } catch (e) {
    setConnection(false, "connection lost: " + e.message);
  }
}

for (const th of byId("hot-keys").tHead.rows[0].cells) {
  th.addEventListener("click", () => {
    const column = th.dataset.sort;
    state.sort = { column, descending: state.sort.column === column ? !state.sort.descending : column !== "key" && column !== "scope" };
    if (state.report) renderHotKeys(state.report);
  });
}

loadHistory().then(() => {
  poll();
  setInterval(poll, 1000);
});
