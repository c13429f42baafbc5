// tapptable watch: the live tables and the history (server: ../server.py).
// The page only shows what the watcher sends; it reconnects by itself and says
// what it waits for.  window.tappWatch is for the tests.
const SUITS = { C: "\u2663", S: "\u2660", H: "\u2665", D: "\u2666" };
const COLOURS = ["#ffd43b", "#74c0fc", "#ff8787", "#8ce99a", "#e599f7", "#ffa94d", "#63e6be", "#dee2e6"];
const STALE_MS = 45000;          // no message for this long: the link is dead, connect again
const W = window.tappWatch = { tables: [], history: null, messages: 0, screenLog: [], linkLog: [], connected: false };
const $ = (sel, el = document) => el.querySelector(sel);

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function card(code) {
  if (!code) return el("span", { class: "card none" }, "·");
  const suit = code[0];
  return el("span", { class: "card" + (suit === "H" || suit === "D" ? " red" : "") },
    (SUITS[suit] || suit) + code.slice(1));
}

function seatName(t, s) {
  const seats = (t.session && t.session.seats) || [];
  return typeof s === "number" && seats[s] ? seats[s] : (s === null || s === undefined ? "–" : "seat " + (s + 1));
}

function signed(n) { return typeof n === "number" ? (n > 0 ? "+" + n : String(n)) : ""; }

// ----- one table ------------------------------------------------------------------

const cards = new Map();         // key -> article

function tableCard(t) {
  let art = cards.get(t.key);
  if (!art) {
    art = $("#table-tpl").content.firstElementChild.cloneNode(true);
    art.dataset.key = t.key;
    cards.set(t.key, art);
    $("#tables").append(art);
  }
  return art;
}

function renderTable(t) {
  const art = tableCard(t);
  const v = t.view || {}, s = t.session || {}, tab = t.table || {};
  $(".t-name", art).textContent = t.name + (t.watcher && !t.local ? " · " + t.watcher : "");
  const link = $(".t-link", art);
  const said = t.link.state === "connected" ? "live" : t.link.text;
  if (link.textContent !== said) W.linkLog.push([Date.now(), t.key, said]);
  link.textContent = said;
  link.className = "t-link " + t.link.state;
  art.dataset.link = t.link.state;
  const game = [];
  if (s.variant) game.push(s.variant_name || s.variant, (s.players || "?") + " players", s.mode + " mode");
  if (t.stage && t.stage !== "play") game.push("the table is in " + t.stage);
  if (typeof v.deals === "number") game.push("deal " + (v.deals + (v.phase === "over" ? 0 : 1)));
  if (v.contract_name) game.push(v.contract_name + (v.declarer >= 0 ? " by " + seatName(t, v.declarer) : "")
    + (v.trump ? " " + (SUITS[v.trump] || v.trump) : "") + (v.multiplier > 1 ? " ×" + v.multiplier : ""));
  $(".t-game", art).textContent = game.join(" · ");
  // seats: name, dealer/declarer/turn, the card on the reader, the balance
  const seats = $(".t-seats", art);
  seats.replaceChildren();
  const played = new Map((t.trick || []).map(([seat, c]) => [seat, c]));
  (s.seats || []).forEach((name, i) => {
    const tags = [];
    if (v.dealer === i) tags.push("deals");
    if (v.declarer === i) tags.push("declarer");
    if (v.turn === i && v.phase !== "over") tags.push("to " + (v.expects || "play"));
    const onReader = played.get(i) || (t.on_reader || [])[i] || null;
    const bal = (t.score && t.score.balances || [])[i];
    seats.append(el("div", { class: "seat" + (v.turn === i ? " turn" : ""), "data-seat": i },
      el("span", { class: "name" }, name, " ", el("span", { class: "tags" }, tags.join(", "))),
      card(onReader), el("span", { class: "bal" }, bal === undefined ? "" : String(bal))));
  });
  const rows = (t.screen || []).join("\n");
  const screen = $(".t-screen", art);
  if (screen.textContent !== rows) {
    screen.textContent = rows;
    W.screenLog.push([Date.now(), t.key, rows]);
    if (W.screenLog.length > 500) W.screenLog.splice(0, W.screenLog.length - 500);
  }
  $(".t-message", art).textContent = tab.message || "";
  // the auction as called
  const calls = (t.auction || []).map(c => seatName(t, c.seat) + ": " + (c.label || c.call || ""));
  $(".t-auction", art).textContent = calls.length ? "Auction: " + calls.join(" · ") : "";
  const last = v.last_trick;
  const lastEl = $(".t-last", art);
  lastEl.replaceChildren();
  if (last && last.cards) lastEl.append("Last trick " + last.n + ": ", ...last.cards.map(card),
    " → " + seatName(t, last.winner) + ", " + last.points + " points");
  const ref = $(".t-refusals", art);
  ref.replaceChildren(...(t.refusals || []).slice(-3).map(r => el("div", { class: "refusal" },
    "Refused at " + (r.seat !== null && r.seat !== undefined ? seatName(t, r.seat) : "reader " + r.reader)
    + (r.card ? " (" + (SUITS[r.card[0]] || "") + r.card.slice(1) + ")" : "") + ": " + (r.message || r.reason))));
  $(".t-revokes", art).textContent = (v.revokes || []).map(r => "Revoke: " + seatName(t, r.seat)
    + " in trick " + r.trick + " (" + r.rule + ")").join(" · ");
  renderSettlement(t, $(".t-result", art));
  renderSheet(t, art);
}

// the settlement as the table says it: the result line's words (what decided
// it, the tricks, the points as played), then each seat's +/- and total, the pot
function renderSettlement(t, box) {
  const s = t.settlement;
  box.replaceChildren();
  if (!s) return;
  const seats = (t.session && t.session.seats) || [];
  const money = el("table", { class: "sheet money" }, el("thead", {}, el("tr", {}, el("th", {}, ""),
    el("th", {}, "+/-"), el("th", {}, "total"))));
  const body = el("tbody");
  seats.forEach((name, i) => body.append(el("tr", {}, el("td", {}, name),
    el("td", {}, signed(s.payments[i])), el("td", {}, String(s.balances[i] ?? "")))));
  if (s.pot) body.append(el("tr", {}, el("td", {}, "pot"), el("td", {}, ""), el("td", {}, String(s.pot))));
  money.append(body);
  box.append(el("p", { class: "said" }, el("b", {}, "Settlement, deal " + s.deal + ": "), s.text), money);
}

function renderSheet(t, art) {
  const seats = (t.session && t.session.seats) || [];
  const rows = (t.score && t.score.rows) || [];
  const said = (t.score && t.score.said) || [];
  const table = el("table", { class: "sheet" });
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "deal"), el("th", { class: "what" }, "contract"),
    ...seats.map(n => el("th", {}, n)), el("th", {}, "pot"))));
  const body = el("tbody");
  rows.forEach((r, k) => body.append(el("tr", { title: (said[k] && said[k].text) || "" }, el("td", {}, String(r.deal)),
    el("td", { class: "what" }, (said[k] && said[k].contract) || "–"),
    ...(r.payments || []).map(p => el("td", {}, signed(p))), el("td", {}, String(r.pot_total ?? "")))));
  body.append(el("tr", {}, el("td", {}, "total"), el("td", { class: "what" }, ""),
    ...((t.score && t.score.balances) || []).map(b => el("td", {}, String(b))),
    el("td", {}, String((t.score && t.score.pot) || 0))));
  table.append(body);
  $(".t-sheet", art).replaceChildren(table);
  const series = seats.map((name, i) => ({ name, points: [0, ...rows.map(r => (r.balances || [])[i] || 0)] }));
  drawChart($(".t-chart", art), series);
}

// ----- a chart of running balances --------------------------------------------------

function drawChart(svg, series) {
  const w = 600, h = 150, pad = 24;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.replaceChildren();
  const n = Math.max(1, ...series.map(s => s.points.length - 1));
  const all = series.flatMap(s => s.points).concat([0]);
  const lo = Math.min(...all), hi = Math.max(...all), span = hi - lo || 1;
  const x = k => pad + (w - 2 * pad) * k / n, y = v => h - pad - (h - 2 * pad) * (v - lo) / span;
  const ns = "http://www.w3.org/2000/svg";
  const zero = document.createElementNS(ns, "line");
  Object.entries({ x1: pad, x2: w - pad, y1: y(0), y2: y(0), stroke: "#557", "stroke-dasharray": "4 3" })
    .forEach(([k, v]) => zero.setAttribute(k, v));
  svg.append(zero);
  series.forEach((s, i) => {
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", s.points.map((v, k) => x(k) + "," + (y(v) + (i - series.length / 2) * 0.8)).join(" "));
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", COLOURS[i % COLOURS.length]);
    line.setAttribute("stroke-width", "2");
    line.setAttribute("vector-effect", "non-scaling-stroke");
    line.dataset.name = s.name;
    const title = document.createElementNS(ns, "title");
    title.textContent = s.name + ": " + s.points[s.points.length - 1];
    line.append(title);
    svg.append(line);
  });
  const legend = svg.nextElementSibling;
  if (legend && legend.classList.contains("legend")) legend.replaceChildren(...series.map((s, i) =>
    el("span", { style: "color:" + COLOURS[i % COLOURS.length] }, s.name + " " + s.points[s.points.length - 1])));
}

// ----- the history ------------------------------------------------------------------

function renderHistory(h) {
  W.history = h;
  const sel = $("#season");
  sel.replaceChildren(...(h.seasons.length ? h.seasons : [""]).map(s => el("option", { value: s }, s || "no sessions yet")));
  sel.value = h.season || "";
  const lb = h.leaderboard;
  $("#leaderboard tbody").replaceChildren(...lb.players.map((p, i) => el("tr", { "data-player": p.name },
    el("td", {}, String(i + 1)), el("td", {}, p.name), el("td", {}, String(p.sessions)), el("td", {}, String(p.balance)))));
  drawChart($("#season-chart"), lb.players.map(p => {
    const pts = new Array(lb.sessions + 1).fill(null);
    pts[0] = 0;
    for (const [k, , bal] of p.series) pts[k + 1] = bal;
    for (let k = 1; k < pts.length; k++) if (pts[k] === null) pts[k] = pts[k - 1];
    return { name: p.name, points: pts };
  }));
  $("#evenings").replaceChildren(...h.sessions.map(s => el("li", { "data-session": s.id },
    el("b", {}, s.day + " · " + s.table), " " + (s.variant_name || s.variant) + ", " + s.deals + " deals: "
    + s.seats.map((n, i) => n + " " + signed((s.balances || [])[i])).join(", ") + " ",
    el("a", { href: "/session/" + s.id + ".csv", download: "" }, "CSV"), " · ",
    el("a", { href: "/session/" + s.id + "/print", target: "_blank" }, "print"))));
}

// ----- the connection ---------------------------------------------------------------

let ws = null, tries = 0, lastHeard = 0;

function setConn(text, down) {
  const c = $("#conn");
  c.textContent = text;
  c.classList.toggle("down", down);
  W.connected = !down;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(proto + "//" + location.host + "/ws");
  ws.onopen = () => { tries = 0; lastHeard = Date.now(); setConn("connected to the watcher", false); };
  ws.onmessage = ev => {
    lastHeard = Date.now();
    W.messages++;
    const m = JSON.parse(ev.data);
    if (m.t === "tables") {
      W.tables = m.tables;
      for (const t of m.tables) { t.local = t.watcher === m.watcher; renderTable(t); }
      const keys = new Set(m.tables.map(t => t.key));
      for (const [k, art] of cards) if (!keys.has(k)) { art.remove(); cards.delete(k); }
      $("#no-tables").hidden = m.tables.length > 0;
      $("#no-tables").textContent = "no table yet: waiting for the watcher's tables";
    } else if (m.t === "history") renderHistory(m);
  };
  ws.onclose = () => {
    ws = null;
    tries++;
    const wait = Math.min(5000, 500 * tries);
    setConn("the watcher is away (stopped, or the network): trying again in " + Math.round(wait / 1000) + " s (try " + tries + ")", true);
    for (const art of cards.values()) $(".t-link", art).textContent = "waiting for the watcher";
    setTimeout(connect, wait);
  };
}

setInterval(() => {           // a link that went silent (a sleeping phone, a dead Wi-Fi)
  if (ws && ws.readyState === WebSocket.OPEN && Date.now() - lastHeard > STALE_MS) ws.close();
}, 5000);
$("#season").addEventListener("change", e => {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: "season", season: e.target.value || null }));
});
connect();
