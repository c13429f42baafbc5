// The virtual table in the browser: one WebSocket to tapptable's server
// (tools/tapptable/sim_web/server.py documents the messages). Plain ES module, no build.

const $ = (sel, el = document) => el.querySelector(sel);
const $$ = (sel, el = document) => Array.from(el.querySelectorAll(sel));

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SUIT_NAMES = { C: "Clubs", S: "Spades", H: "Hearts", D: "Diamonds" };
const SUIT_ORDER = "CSHD";
const RANKS = ["A", "10", "K", "Q", "J", "9", "8", "7", "6"];
const RANK_NAMES = { A: "Ace", 10: "Ten", K: "King", Q: "Queen", J: "Jack", 9: "Nine",
  8: "Eight", 7: "Seven", 6: "Six" };
const POSITIONS = {   // where each seat sits, counted from yours (at the bottom)
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "tl", "tr", "right"],
  6: ["bottom", "left", "tl", "top", "tr", "right"],
};
const SEAT_COLOURS = ["#e6550d", "#3182bd", "#31a354", "#756bb1", "#d6616b", "#8c6d31"];
// equal balances draw the same line: each seat has its own dash and marker, and the
// lines are drawn a pixel apart, so one never hides another
const SEAT_DASHES = ["", "7 4", "2 3", "10 3 2 3", "4 2", "1 4"];
const SEAT_MARKERS = ["circle", "square", "diamond", "triangle", "circle", "square"];
const LIT = [150, 210, 255];       // the OLED's lit pixel colour
const HOLD_HINT_MS = 700;          // the device's long press

let ws = null;
let cfg = null;                    // the welcome message
let st = null;                     // the last state
let selected = null;               // {card, seat} chosen by click / Space
let audio = null;                  // {ctx, osc, gain, offset} once sound is on
let retry = 500;
// the tab's token: a reload connects with it again and keeps the seats
let token = sessionStorage.getItem("tappToken") || "";
const held = new Set();            // device buttons this page holds down
const debug = { frames: 0, states: 0, lit: 0, pwm: [] };
window.tappSim = debug;

// ----- connection ----------------------------------------------------------------------

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : ""));
  ws.binaryType = "arraybuffer";
  ws.onopen = () => { retry = 500; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") {
      const bytes = new Uint8Array(ev.data);
      if (bytes[0] === 1) drawOled(bytes.subarray(1));
      return;
    }
    const msg = JSON.parse(ev.data);
    if (msg.t === "welcome") {
      cfg = msg;
      token = msg.token;
      for (const b of $$("main button, header .toggles button, header .toggles input")) {
        b.disabled = false;               // connected again (render() disables some)
      }
      sessionStorage.setItem("tappToken", token);
      $("#game-info").textContent =
        `· ${msg.variant_name}, ${msg.players} players, ${msg.mode} mode`;
      const note = $("#resumed");
      note.hidden = !msg.resumed;
      if (msg.resumed) {
        note.textContent = "The table was switched on again and took the session up from " +
          `its journal, as the device does (${msg.resumed.deals} deals played, ` +
          `${msg.resumed.events} events).`;
      }
    } else if (msg.t === "state") {
      st = msg;
      debug.states += 1;
      debug.state = msg;
      render();
    } else if (msg.t === "pwm") {
      debug.pwm.push(...msg.events);
      if (debug.pwm.length > 200) debug.pwm.splice(0, debug.pwm.length - 200);
      playPwm(msg);
    } else if (msg.t === "error") {
      toast(msg.text);
    }
  };
  ws.onclose = () => {
    $("#conn").textContent = "disconnected – reconnecting…";
    document.body.dataset.connected = "0";
    for (const b of $$("main button, header .toggles button, header .toggles input")) {
      b.disabled = true;
    }
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

function send(obj) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
}

// ----- the OLED -------------------------------------------------------------------------

const oled = $("#oled");
const octx = oled.getContext("2d");
const image = octx.createImageData(128, 64);

function drawOled(bits) {
  const px = image.data;
  let lit = 0;
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 128; x++) {
      const on = bits[(y * 128 + x) >> 3] & (0x80 >> (x & 7));
      const i = (y * 128 + x) * 4;
      px[i] = on ? LIT[0] : 0;
      px[i + 1] = on ? LIT[1] : 0;
      px[i + 2] = on ? LIT[2] : 0;
      px[i + 3] = 255;
      if (on) lit++;
    }
  }
  octx.putImageData(image, 0, 0);
  debug.frames += 1;
  debug.lit = lit;
}

// ----- sound: the buzzer's PWM with Web Audio -------------------------------------------

function soundOn() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) { toast("This browser has no Web Audio"); return; }
  const ctx = new Ctx();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "square";
  gain.gain.value = 0;
  osc.connect(gain).connect(ctx.destination);
  osc.start();
  audio = { ctx, osc, gain, offset: null };
}

function playPwm(msg) {
  if (!audio) return;
  const { ctx, osc, gain } = audio;
  const speed = msg.speed || 1;
  const now = ctx.currentTime;
  // virtual ms -> audio seconds; re-anchored when it drifts
  const at = (ms) => audio.offset + ms / 1000 / speed;
  if (audio.offset === null || at(msg.now) < now || at(msg.now) > now + 0.5) {
    audio.offset = now + 0.08 - msg.now / 1000 / speed;
  }
  for (const [ms, freq, on] of msg.events) {
    const t = Math.max(now, at(ms));
    osc.frequency.setValueAtTime(Math.max(20, freq), t);
    gain.gain.setValueAtTime(on ? 0.08 : 0, t);
  }
}

$("#sound").addEventListener("click", () => {
  const btn = $("#sound");
  if (!audio) {
    soundOn();
  } else if (audio.ctx.state === "running") {
    audio.ctx.suspend();
  } else {
    audio.ctx.resume();
  }
  const on = audio && audio.ctx.state !== "suspended" && btn.getAttribute("aria-pressed") !== "true";
  btn.setAttribute("aria-pressed", on ? "true" : "false");
  btn.textContent = on ? "Sound: on" : "Sound: off";
});

// ----- cards ----------------------------------------------------------------------------

const suitOf = (code) => code[0];
const rankOf = (code) => code.slice(1);
const cardName = (code) => `${RANK_NAMES[rankOf(code)]} of ${SUIT_NAMES[suitOf(code)]}`;
const cardText = (code) => `${SUITS[suitOf(code)]}${rankOf(code)}`;
const red = (code) => "HD".includes(suitOf(code));
const cardKey = (code) => SUIT_ORDER.indexOf(suitOf(code)) * 10 + RANKS.indexOf(rankOf(code));

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;" })[c]);
}

function faceHtml(code) {
  return `<span class="suit" aria-hidden="true">${SUITS[suitOf(code)]}</span>` +
    `<span class="rank" aria-hidden="true">${esc(rankOf(code))}</span>`;
}

function seatName(s) {
  return st && st.names[s] ? `Seat ${s + 1} (${st.names[s]})` : `Seat ${s + 1}`;
}

// ----- rendering ------------------------------------------------------------------------

// A state comes whenever anything on the table changes (an LED, the turn, a reader),
// often while the user is pressing a card. So the seats are built once and then
// updated part by part, never by replacing their HTML: a card keeps its button from
// the moment it comes into the hand until it leaves it, and the readers and the claim
// buttons keep theirs, so a press that began on one (mousedown, a drag, a click) ends
// on the same node.

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

function rove(card) {
  // one card per hand in the tab order (roving tabindex)
  if (!card.classList.contains("card")) return;
  const hand = card.closest(".hand");
  if (!hand) return;
  for (const c of $$(".card", hand)) c.tabIndex = c === card ? 0 : -1;
}

function seatSkeleton(s) {
  const sec = document.createElement("section");
  sec.className = "seat";
  sec.dataset.seat = s;
  sec.setAttribute("aria-labelledby", `seat${s}-h`);
  sec.innerHTML = `<div class="seat-head">
      <span class="led" role="img"></span>
      <h3 id="seat${s}-h"></h3>
      <span class="badges"></span>
      <span class="taken"></span>
    </div>
    <div class="reader" role="button" tabindex="0" data-reader="${s}" data-fk="reader${s}">
      <span class="reader-label">reader</span><span class="reader-cards"></span>
    </div>
    <div class="hand"></div>`;
  return sec;
}

function renderSeat(sec, s) {
  const head = $(".seat-head", sec);
  const led = st.leds[s] || { state: "off", rgb: [0, 0, 0] };
  const [r, g, b] = led.rgb;
  const ledEl = $(".led", head);
  const colour = `rgb(${r}, ${g}, ${b})`;
  if (ledEl.dataset.colour !== colour) {
    ledEl.dataset.colour = colour;
    ledEl.style.background = colour;
  }
  setAttr(ledEl, "aria-label", st.taken_back[s] ? "LED: red, lift the card undo took back" :
    `LED: ${led.state}`);
  setText($("h3", head), seatName(s));
  const badges = [];
  if (st.dealer === s) badges.push("dealer");
  if (st.declarer === s && st.step === "game") badges.push("declarer");
  if (st.turn === s && st.step === "game") badges.push("on turn");
  setText($(".badges", head), badges.join(" · "));
  renderClaim(head, s);
  renderReaderCards($(".reader", sec), st.readers[s], `${seatName(s)} reader`);
  renderHand($(".hand", sec), s);
}

function renderClaim(head, s) {
  // the head's last element: "Sit here", "Stand up" or "taken"; replaced only when
  // the seat's claim changes (the keyboard focus moves to the new button)
  const claim = st.claims[s] || "free";
  const mine = claim === "you";
  const label = `${mine ? "Stand up from" : "Sit at"} ${seatName(s)}`;
  const old = head.lastElementChild;
  if (old.dataset.claimState === claim) {
    if (old.tagName === "BUTTON") setAttr(old, "aria-label", label);
    return;
  }
  let el;
  if (claim === "taken") {
    el = document.createElement("span");
    el.className = "taken";
    el.textContent = "taken";
  } else {
    el = document.createElement("button");
    el.type = "button";
    el.className = "claim";
    el.dataset.fk = `claim${s}`;
    el.dataset[mine ? "release" : "claim"] = s;
    el.setAttribute("aria-label", label);
    el.textContent = mine ? "Stand up" : "Sit here";
  }
  el.dataset.claimState = claim;
  const focused = document.activeElement === old;
  old.replaceWith(el);
  if (focused) (el.tagName === "BUTTON" ? el : $(".reader", head.parentElement)).focus();
}

function renderReaderCards(reader, cards, name) {
  // only the cards lying there change: the reader itself (a drop target, a button
  // that lifts them) stays
  const key = cards.join(",");
  if (reader.dataset.key === key) return;
  reader.dataset.key = key;
  $(".reader-cards", reader).innerHTML = cards.map(
    (c) => `<span class="card face${red(c) ? " red" : ""}">${faceHtml(c)}</span>`).join("");
  reader.setAttribute("aria-label", `${name}: ` +
    (cards.length ? cards.map(cardName).join(", ") + " lies there" : "empty"));
}

function cardButton(code, s) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = `card face${red(code) ? " red" : ""}`;
  el.draggable = true;
  el.dataset.card = code;
  el.dataset.seat = s;
  el.dataset.fk = `card:${code}`;
  el.tabIndex = -1;
  el.setAttribute("aria-pressed", "false");
  el.setAttribute("aria-label", cardName(code));
  el.innerHTML = faceHtml(code);
  return el;
}

function renderHand(el, s) {
  const hand = st.hands[s];
  if (!hand.cards) {                         // another tab's seat, or nobody's: backs
    const key = `closed:${hand.count}`;
    if (el.dataset.key === key) return;
    const focused = el.contains(document.activeElement);
    el.dataset.key = key;
    el.className = "hand closed";
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", `${hand.count} cards, face down`);
    el.innerHTML = Array.from({ length: Math.min(hand.count, 12) },
      () => `<span class="card back"></span>`).join("") +
      (hand.count ? `<span class="count">${hand.count}</span>` : "");
    if (focused) $(".reader", el.parentElement).focus();
    return;
  }
  if (!st.you.includes(s)) {                 // Bettel ouvert: the declarer's hand, face up
    const key = "shown:" + hand.cards.join(",");
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.className = "hand shown";
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", `${seatName(s)}'s hand, laid open (Bettel ouvert): ` +
      hand.cards.map(cardName).join(", "));
    el.innerHTML = [...hand.cards].sort((a, b) => cardKey(a) - cardKey(b)).map(
      (c) => `<span class="card face${red(c) ? " red" : ""}">${faceHtml(c)}</span>`).join("");
    return;
  }
  const label = `Your hand at ${seatName(s)}: ${hand.count} cards`;
  const sorted = [...hand.cards].sort((a, b) => cardKey(a) - cardKey(b));
  const key = "open:" + sorted.join(",");
  if (el.dataset.key === key) {
    setAttr(el, "aria-label", label);
    return;
  }
  if (!(el.dataset.key || "").startsWith("open:")) el.innerHTML = "";
  el.dataset.key = key;
  el.className = "hand";
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", label);
  // keyed by card: the buttons of the cards still in the hand stay where they are,
  // the cards that left go, new ones come in at their place in the sorted order
  const keep = new Set(sorted);
  const active = document.activeElement;
  let lostFocusAt = -1;
  const have = new Map();
  $$(".card", el).forEach((c, i) => {
    if (keep.has(c.dataset.card)) {
      have.set(c.dataset.card, c);
    } else {
      if (c === active) lostFocusAt = i;
      c.remove();
    }
  });
  sorted.forEach((code, i) => {
    const c = have.get(code) || cardButton(code, s);
    if (el.children[i] !== c) el.insertBefore(c, el.children[i] || null);
  });
  const cards = $$(".card", el);
  if (lostFocusAt >= 0) {                    // the focused card has gone: its neighbour
    const next = cards[Math.min(lostFocusAt, cards.length - 1)];
    if (next) {
      rove(next);
      next.focus();
    } else {
      $(".reader", el.parentElement).focus();
    }
  } else if (cards.length && !cards.some((c) => c.tabIndex === 0)) {
    rove(cards[0]);
  }
}

function render() {
  const you = st.you;
  const base = you.length ? you[0] : 0;
  const n = st.players;
  document.body.dataset.connected = "1";
  document.body.dataset.step = st.step;
  $("#conn").textContent = you.length ?
    `connected – you sit at ${you.map(seatName).join(", ")}` :
    "connected – you watch (take a seat to play)";

  const robots = $("#robots");
  robots.checked = st.robots;
  robots.disabled = !you.length;

  const text = st.screen.join("\n");
  const live = $("#oled-text");
  if (live.textContent !== text) live.textContent = text;

  // seats
  const layer = $("#seats");
  if (layer.childElementCount !== n) {
    layer.innerHTML = "";
    for (let s = 0; s < n; s++) layer.appendChild(seatSkeleton(s));
  }
  const order = POSITIONS[n] || POSITIONS[6];
  for (let s = 0; s < n; s++) {
    const sec = layer.children[s];
    const pos = order[(s - base + n) % n];
    setAttr(sec, "class", `seat pos-${pos}` + (st.claims[s] === "you" ? " mine" : "") +
      (st.turn === s && st.step === "game" ? " on-turn" : ""));
    renderSeat(sec, s);
  }

  // the centre reader and the piles
  renderReaderCards($("#reader-centre"), st.readers[cfg.centre], "Centre reader");
  const dealing = st.step === "dealing" && st.mode === "strict" && st.deck > 0;
  $("#deck-pile").hidden = !dealing;
  $("#deck .count").textContent = st.deck;
  $("#deck").disabled = !you.length || st.dealing;
  $("#deal-all").disabled = !you.length || st.dealing;
  $("#deal-all").textContent = st.dealing ? "Dealing…" : "Deal all";
  $("#talon-pile").hidden = st.talon === 0;
  $("#talon-pile .count").textContent = `(${st.talon})`;
  const asideOpen = st.mode === "open" && st.expects === "discard" && you.includes(st.declarer);
  $("#aside").hidden = !(asideOpen || st.aside > 0);
  $("#aside").classList.toggle("target", asideOpen);
  $("#aside .pile-label").firstChild.textContent = asideOpen ? "Put aside " : "Aside ";
  $("#aside .count").textContent = `(${st.aside})`;
  $("#played-pile .count").textContent = st.played;
  for (const b of $$(".hw")) {
    b.disabled = !you.length;
    b.classList.toggle("down", st.held.includes(b.dataset.key));
  }
  $("#hint").textContent = hint();
  $("#hint").classList.toggle("urgent", mustLift());

  renderScores();
  renderTricks();
  if (selected && !ownCards().some((c) => c.card === selected.card)) selected = null;
  markSelected();
}

function mustLift() {
  // a card of yours the table refused still lies on a reader
  return !!st && st.you.some((s) => st.refused[s] && st.readers[s].length) ||
    (!!st && st.refused[cfg.centre] && st.readers[cfg.centre].length > 0 &&
     st.you.includes(st.declarer));
}

function hint() {
  if (!st.you.length) return "Take a seat to play; watching tabs see every seat face down.";
  const you = st.you.map(seatName).join(", ");
  const turn = st.turn >= 0 ? seatName(st.turn) : "";
  if (typeof st.undo === "string") {
    return st.undo ? `Undo ${st.undo}? OK: yes, any other button: no (the display names it).` :
      "Nothing to undo: any button closes the question.";
  }
  if (mustLift()) {
    if (st.you.some((s) => st.taken_back[s] && st.readers[s].length)) {
      return "Undo took back the card on your reader: lift it (click the reader, or L).";
    }
    return "The table refused the card on your reader (its display says why): lift it " +
      "(click the reader, or L) and play another.";
  }
  if (st.step === "dealing") {
    return st.dealing ? "Dealing over the centre reader…" :
      `${seatName(st.dealer)} deals: “Deal all”, or the deck's top card over the centre reader.`;
  }
  if (st.step === "result") {
    return "The deal is settled (prev/next page through the settlement): everybody lifts " +
      "the last trick, then OK starts the next deal.";
  }
  if (st.step === "over") return "The session is over.";
  if (st.clearing) {
    const yours = st.you.filter((s) => st.readers[s].length);
    return yours.length ? "Trick complete: lift your card off your reader (click it, or L); " +
      "the winner leads next." : "Trick complete: waiting until everybody has lifted their card.";
  }
  const mine = st.question.filter((s) => st.you.includes(s));
  if (mine.length) {
    return `${you}: your question on the display – prev / next choose, OK confirms ` +
      "(hold OK 0.7 s for an announcement that changes the stakes).";
  }
  if (st.question.length) {
    return `${st.question.map(seatName).join(", ")} choose${st.question.length > 1 ? "" : "s"} on the display…`;
  }
  if (st.expects === "card") {
    // a Rufer's hand-over is due until the first card: who gives what to whom
    const rufer = st.rufer ? `${st.rufer}. ` : "";
    return rufer + (st.you.includes(st.turn) ? `Your turn, ${turn}: drag a card onto ` +
      "your reader (or click it, then the reader)." : `${turn} plays a card.`);
  }
  if (st.expects === "discard") {
    if (st.you.includes(st.declarer)) {
      return st.mode === "strict" ? "You took up the talon: lay your discards over the " +
        "centre reader, one by one (place, then lift)." :
        "You took up the talon: put your discards aside, then OK.";
    }
    return st.mode === "strict" ? `${turn} discards over the centre reader.` :
      `${turn} puts the discards aside, then OK.`;
  }
  return `${turn}: choose with prev / next, then OK.`;
}

function renderScores() {
  const names = st.names;
  const hist = st.history;
  const key = JSON.stringify([names, hist, st.result_text]);
  const table = $("#score-table");
  if (table.dataset.key === key) return;
  table.dataset.key = key;
  let html = `<caption class="sr-only">Balances after each deal</caption><thead><tr>
    <th scope="col">Deal</th>${names.map((nm) => `<th scope="col">${esc(nm)}</th>`).join("")}
    </tr></thead><tbody>`;
  hist.forEach((row, i) => {
    html += `<tr><th scope="row">${i === 0 ? "start" : i}</th>` +
      row.map((v) => `<td class="${v < 0 ? "neg" : ""}">${v > 0 ? "+" : ""}${v}</td>`).join("") +
      "</tr>";
  });
  table.innerHTML = html + "</tbody>";
  drawChart(names, hist);
  // the server says what decided the deal and the points as played
  // (tools/tapptable/outcome.py): "Herz-Rufer by Cora, lost in trick 1 (...)"
  $("#result").textContent = st.result ? `Last deal: ${st.result_text}` : "";
}

function drawChart(names, hist) {
  const svg = $("#chart");
  const W = 320, H = 160, L = 36, R = 8, T = 10, B = 22;
  const all = hist.flat();
  let lo = Math.min(0, ...all), hi = Math.max(0, ...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  const xs = (i) => L + (hist.length > 1 ? i * (W - L - R) / (hist.length - 1) : 0);
  const ys = (v) => T + (hi - v) * (H - T - B) / (hi - lo);
  let out = `<title id="chart-title">Balance of each seat over the deals: ` +
    names.map((nm, s) => `${esc(nm)} ${hist[hist.length - 1][s]}`).join(", ") + `</title>`;
  out += `<line class="axis" x1="${L}" x2="${W - R}" y1="${ys(0)}" y2="${ys(0)}"/>`;
  out += `<text class="tick" x="${L - 4}" y="${ys(hi) + 4}" text-anchor="end">${hi}</text>`;
  out += `<text class="tick" x="${L - 4}" y="${ys(lo) + 4}" text-anchor="end">${lo}</text>`;
  out += `<text class="tick" x="${L - 4}" y="${ys(0) + 4}" text-anchor="end">0</text>`;
  out += `<text class="tick" x="${W - R}" y="${H - 6}" text-anchor="end">deal ${hist.length - 1}</text>`;
  const n = names.length;
  names.forEach((_nm, s) => {
    const off = (s - (n - 1) / 2) * 1.5;     // equal lines side by side, not on top
    const pt = (row, i) => [xs(i), ys(row[s]) + off];
    const pts = hist.map((row, i) => pt(row, i).map((v) => v.toFixed(1)).join(",")).join(" ");
    const colour = SEAT_COLOURS[s % SEAT_COLOURS.length];
    const dash = SEAT_DASHES[s % SEAT_DASHES.length];
    out += `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts}"` +
      `${dash ? ` stroke-dasharray="${dash}"` : ""} data-seat="${s}"/>`;
    hist.forEach((row, i) => out += marker(SEAT_MARKERS[s % SEAT_MARKERS.length],
      ...pt(row, i), colour));
  });
  svg.innerHTML = out;
  $("#chart-legend").innerHTML = names.map((nm, s) =>
    `<span><svg class="key" viewBox="0 0 28 10" aria-hidden="true"><line x1="1" x2="27" y1="5"
      y2="5" stroke="${SEAT_COLOURS[s % SEAT_COLOURS.length]}" stroke-width="2"
      stroke-dasharray="${SEAT_DASHES[s % SEAT_DASHES.length]}"/>` +
    `${marker(SEAT_MARKERS[s % SEAT_MARKERS.length], 14, 5, SEAT_COLOURS[s % SEAT_COLOURS.length])}` +
    `</svg>${esc(nm)}</span>`).join("");
}

function marker(shape, x, y, colour) {
  const r = 3;
  const at = (dx, dy) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`;
  if (shape === "square") {
    return `<rect x="${(x - r).toFixed(1)}" y="${(y - r).toFixed(1)}" width="${2 * r}" ` +
      `height="${2 * r}" fill="${colour}"/>`;
  }
  if (shape === "diamond") {
    return `<polygon points="${at(0, -r - 1)} ${at(r + 1, 0)} ${at(0, r + 1)} ${at(-r - 1, 0)}" ` +
      `fill="${colour}"/>`;
  }
  if (shape === "triangle") {
    return `<polygon points="${at(0, -r - 1)} ${at(r + 1, r)} ${at(-r - 1, r)}" fill="${colour}"/>`;
  }
  return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r}" fill="${colour}"/>`;
}

function renderTricks() {
  const cur = st.trick.length ?
    "On the table: " + st.trick.map(([s, c]) => `${st.names[s]} ${cardText(c)}`).join(", ") : "";
  $("#current-trick").textContent = cur;
  const key = JSON.stringify(st.tricks);
  const list = $("#tricks");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.innerHTML = st.tricks.map((t) => {
    const plays = t.cards.map((c, i) => {
      const s = t.seats ? t.seats[i] : -1;
      return `<span class="play${s === t.winner ? " win" : ""}">${esc(st.names[s] || "")}
        <span class="${red(c) ? "red" : ""}">${cardText(c)}</span></span>`;
    }).join(" · ");
    return `<li value="${t.n}">${plays} → <strong>${esc(st.names[t.winner] || "")}</strong>
      (${t.points})</li>`;
  }).join("");
}

// ----- acting ---------------------------------------------------------------------------

function ownCards() {
  const out = [];
  if (!st) return out;
  for (const s of st.you) for (const c of st.hands[s].cards || []) out.push({ card: c, seat: s });
  return out;
}

function markSelected() {
  for (const el of $$(".hand .card")) {
    const on = selected && el.dataset.card === selected.card;
    el.classList.toggle("selected", !!on);
    el.setAttribute("aria-pressed", on ? "true" : "false");
  }
  document.body.classList.toggle("choosing", !!selected);
}

function readerNumber(el) {
  const r = el.dataset.reader;
  return r === "centre" ? cfg.centre : Number(r);
}

function defaultReader(seat) {
  if (st.step === "dealing") return cfg.centre;
  if (st.expects === "discard" && st.declarer === seat) {
    return st.mode === "strict" ? cfg.centre : "aside";
  }
  return seat;
}

function placeCard(card, seat, reader) {
  if (reader === "aside") {
    send({ t: "aside", card });
  } else {
    send({ t: "place", card, reader });
  }
  selected = null;
  markSelected();
}

function liftReader(reader) {
  send({ t: "lift", reader });
}

function myLiftTarget() {
  for (const s of st.you) if (st.readers[s].length) return s;
  if (st.readers[cfg.centre].length) return cfg.centre;
  return null;
}

function focusedCard() {
  const el = document.activeElement;
  if (el && el.classList.contains("card") && el.dataset.card) {
    return { card: el.dataset.card, seat: Number(el.dataset.seat) };
  }
  return selected;
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest("button, .reader, .zone");
  if (!el || !st) return;
  if (el.dataset.claim !== undefined) {
    send({ t: "claim", seat: Number(el.dataset.claim) });
  } else if (el.dataset.release !== undefined) {
    send({ t: "release", seat: Number(el.dataset.release) });
  } else if (el.classList.contains("card") && el.dataset.card) {
    const pick = { card: el.dataset.card, seat: Number(el.dataset.seat) };
    selected = selected && selected.card === pick.card ? null : pick;
    rove(el);
    markSelected();
  } else if (el.id === "deck") {
    selected = selected && selected.card === "deck" ? null : { card: "deck", seat: -1 };
    markSelected();
    $("#deck").classList.toggle("selected", !!selected);
  } else if (el.id === "deal-all") {
    send({ t: "deal" });
  } else if (el.classList.contains("reader")) {
    readerAction(el);
  } else if (el.id === "aside") {
    if (selected && selected.card !== "deck") placeCard(selected.card, selected.seat, "aside");
  }
});

function readerAction(el) {
  const reader = readerNumber(el);
  if (selected) {
    placeCard(selected.card, selected.seat, reader);
    $("#deck").classList.remove("selected");
  } else if (st.readers[reader].length) {
    liftReader(reader);
  } else {
    toast("Choose a card first (click it), then the reader.");
  }
}

$("#robots").addEventListener("change", (ev) => send({ t: "robots", on: ev.target.checked }));
$("#power").addEventListener("click", () => send({ t: "power" }));

// drag and drop
document.addEventListener("dragstart", (ev) => {
  const el = ev.target.closest && ev.target.closest(".card[draggable=true]");
  if (!el) return;
  const card = el.id === "deck" ? "deck" : el.dataset.card;
  ev.dataTransfer.setData("text/plain", card);
  ev.dataTransfer.effectAllowed = "move";
  document.body.classList.add("dragging");
  // on the card itself: dragend reaches it even if it has left the page meanwhile
  el.addEventListener("dragend", dragDone, { once: true });
});
function dragDone() {
  document.body.classList.remove("dragging");
  for (const t of $$(".over")) t.classList.remove("over");
}
function dropTarget(ev) {
  return ev.target.closest && ev.target.closest(".reader, #aside.target");
}
document.addEventListener("dragover", (ev) => {
  const t = dropTarget(ev);
  if (!t) return;
  ev.preventDefault();
  ev.dataTransfer.dropEffect = "move";
  t.classList.add("over");
});
document.addEventListener("dragleave", (ev) => {
  const t = dropTarget(ev);
  if (t) t.classList.remove("over");
});
document.addEventListener("drop", (ev) => {
  const t = dropTarget(ev);
  if (!t) return;
  ev.preventDefault();
  dragDone();
  const card = ev.dataTransfer.getData("text/plain");
  if (!card) return;
  placeCard(card, -1, t.id === "aside" ? "aside" : readerNumber(t));
});

// the device's buttons: press and hold (pointer or keyboard)
function buttonDown(key) {
  if (held.has(key)) return;
  held.add(key);
  send({ t: "button", key, down: true });
}
function buttonUp(key) {
  if (!held.has(key)) return;
  held.delete(key);
  send({ t: "button", key, down: false });
}
for (const b of $$(".hw")) {
  const key = b.dataset.key;
  b.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    b.setPointerCapture(ev.pointerId);
    buttonDown(key);
  });
  for (const name of ["pointerup", "pointercancel", "lostpointercapture"]) {
    b.addEventListener(name, () => buttonUp(key));
  }
  b.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (!ev.repeat) buttonDown(key);
    }
  });
  b.addEventListener("keyup", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") buttonUp(key);
  });
  b.title = key === "ok" ? "OK (hold 0.7 s: undo)" :
    key === "prev" ? "PREV (hold 0.7 s: score sheet)" :
    "NEXT (hold 0.7 s: points so far, the last trick)";
}
window.addEventListener("blur", () => { for (const k of [...held]) buttonUp(k); });

const KEY_BUTTONS = { p: "prev", n: "next", o: "ok" };

document.addEventListener("keydown", (ev) => {
  if (!st || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const el = document.activeElement;
  if (el && el.tagName === "INPUT") return;
  const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  const onCard = el && el.classList.contains("card") && el.dataset.card;
  if (onCard && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(k)) {
    const cards = $$(".card", el.closest(".hand"));
    let i = cards.indexOf(el);
    if (k === "ArrowLeft" || k === "ArrowUp") i = Math.max(0, i - 1);
    else if (k === "ArrowRight" || k === "ArrowDown") i = Math.min(cards.length - 1, i + 1);
    else if (k === "Home") i = 0;
    else i = cards.length - 1;
    rove(cards[i]);
    cards[i].focus();
    ev.preventDefault();
    return;
  }
  if (onCard && k === "Enter") {
    ev.preventDefault();
    const seat = Number(el.dataset.seat);
    placeCard(el.dataset.card, seat, defaultReader(seat));
    return;
  }
  if (el && el.id === "deck" && k === "Enter") {
    ev.preventDefault();
    placeCard("deck", -1, cfg.centre);
    return;
  }
  if (el && el.classList.contains("reader") && (k === "Enter" || k === " ")) {
    ev.preventDefault();
    readerAction(el);
    return;
  }
  if (el && el.id === "aside" && (k === "Enter" || k === " ")) {
    ev.preventDefault();
    const c = focusedCard();
    if (c) placeCard(c.card, c.seat, "aside");
    return;
  }
  if (k === "c") {
    const c = focusedCard();
    if (c) placeCard(c.card, c.seat, cfg.centre);
  } else if (k === "a") {
    const c = focusedCard();
    if (c && c.card !== "deck") placeCard(c.card, c.seat, "aside");
  } else if (k === "l") {
    const r = el && el.classList.contains("reader") ? readerNumber(el) : myLiftTarget();
    if (r !== null) liftReader(r);
  } else if (KEY_BUTTONS[k]) {
    if (!ev.repeat) buttonDown(KEY_BUTTONS[k]);
  } else if (k === "Escape") {
    selected = null;
    markSelected();
    return;
  } else {
    return;
  }
  ev.preventDefault();
});
document.addEventListener("keyup", (ev) => {
  const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (KEY_BUTTONS[k]) buttonUp(KEY_BUTTONS[k]);
});

// ----- messages -------------------------------------------------------------------------

let toastTimer = null;
function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 4000);
}

connect();
