// The table page: everything shown comes from the latest snapshot (stream or POST answer).
// No framework, no build step: the Pi serves this file as it is.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const minPlayers = Number(body.dataset.minPlayers);
  let shown = { match: undefined, version: -1 };
  let snap = null;
  let setupOpen = false;
  let linksFor;
  const choices = new Map();

  // ---- server calls -------------------------------------------------------------------------
  let csrf = "";

  async function call(path, payload) {
    const init = payload === undefined ? {} : {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(payload),
    };
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (res.status === 403 && path !== "/api/login") whoami(); // the host session may be gone
    if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
    return data;
  }

  // ---- joining, sound and vibration ------------------------------------------------------------
  async function loadJoin() {
    try {
      const join = await call("/api/join");
      $("join-url").textContent = join.url
        ? `Phones on the same network open ${join.url}`
        : "This page is only reachable from this machine (start with --host 0.0.0.0).";
      $("join-qr").innerHTML = join.qr_svg || "";
    } catch (e) { toast(e.message); }
  }

  // Browsers play sound only after the page was touched once; vibration needs a phone.
  let audio = null;
  document.addEventListener("pointerdown", () => {
    if (!audio && window.AudioContext) audio = new AudioContext();
  }, { once: true });

  function beep(freqs) {
    if (!audio) return;
    freqs.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.value = 0.15;
      osc.connect(gain).connect(audio.destination);
      const at = audio.currentTime + i * 0.18;
      osc.start(at);
      osc.stop(at + 0.15);
    });
  }

  let heard = null;
  function announce(verdicts) {
    const last = verdicts[verdicts.length - 1];
    const key = `${shown.match}:${verdicts.length}`;
    if (heard === null || !last) { heard = key; return; } // nothing new on first load
    if (key === heard) return;
    heard = key;
    if (!last.legal) {
      beep([220, 180]);
      if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
      body.dataset.alert = "illegal";
    } else if (last.shout) {
      beep([523, 659, 784]);
      if (navigator.vibrate) navigator.vibrate(120);
      body.dataset.alert = "shout";
    }
  }

  // ---- past games: open, export, import -----------------------------------------------------
  async function loadGames() {
    let data;
    try { data = await call("/api/games"); } catch (e) { toast(e.message); return; }
    $("games").replaceChildren(...data.games.map((g) => {
      const li = document.createElement("li");
      const when = new Date(g.created * 1000).toLocaleString();
      const label = document.createElement("span");
      label.textContent = `#${g.id} ${when} · ${g.names.join(", ")}${g.finished ? "" : " · unfinished"}`;
      const open = document.createElement("button");
      open.type = "button";
      open.textContent = "Open";
      open.addEventListener("click", async () => {
        try { render((await call(`/api/games/${g.id}/open`, {})).snapshot); } catch (e) { toast(e.message); }
      });
      const json = document.createElement("a");
      json.href = `/api/games/${g.id}/record.json`;
      json.textContent = "JSON";
      const text = document.createElement("a");
      text.href = `/api/games/${g.id}/record.txt`;
      text.textContent = "text";
      li.append(label, " ", open, " ", json, " ", text);
      return li;
    }));
  }

  async function importGame() {
    const file = $("import-file").files[0];
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      const answer = await call("/api/import", record);
      render(answer.snapshot);
      toast(`Loaded game #${answer.match_id}`);
      loadGames();
    } catch (e) {
      toast(e instanceof SyntaxError ? "That file is not a game record (JSON)" : e.message);
    }
    $("import-file").value = "";
  }

  // ---- host or viewer -----------------------------------------------------------------------
  function setHost(host) {
    const was = body.dataset.host;
    body.dataset.host = host ? "yes" : "no";
    if (host && was !== "yes") { linksFor = undefined; if (snap) loadLinks(snap.match_id); }
    if (snap) $("setup").hidden = !host || (snap.status !== "idle" && !setupOpen);
  }

  async function whoami() {
    try {
      const me = await call("/api/whoami");
      csrf = me.csrf;
      setHost(me.host);
    } catch (_) { /* offline: the stream badge says so */ }
  }

  async function login(event) {
    event.preventDefault();
    const error = $("login-error");
    try {
      const me = await call("/api/login", { pin: $("pin").value });
      csrf = me.csrf;
      $("pin").value = "";
      error.hidden = true;
      setHost(true);
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    }
  }

  let toastTimer;
  function toast(message) {
    const t = $("toast");
    t.textContent = message;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  // ---- rendering ----------------------------------------------------------------------------
  function playerName(view, index) {
    if (typeof index === "string") return index;
    const p = view && view.players && view.players[index];
    return p ? p.name : `Player ${Number(index) + 1}`;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  function render(next) {
    // A POST answer and the stream may deliver the same snapshot, or an older one late.
    if (next.match_id === shown.match && next.version <= shown.version) return;
    shown = { match: next.match_id, version: next.version };
    snap = next;
    body.dataset.version = String(next.version);
    body.dataset.status = next.status;

    const playing = next.status !== "idle";
    $("game").hidden = !playing;
    $("setup").hidden = body.dataset.host !== "yes" || (playing && !setupOpen);
    $("undo").disabled = !playing;
    if (!playing) return;

    const view = next.view || {};
    renderSync(next.sync);
    renderDoubt(next.doubt);
    renderVerdict(next.verdicts || [], view);
    announce(next.verdicts || []);
    renderStatus(view, next.status);
    renderLegalMoves(next);
    if (!movesFor) $("board").innerHTML = next.board_svg || "";
    renderMoves(next.verdicts || [], view);
    if (linksFor !== next.match_id && body.dataset.host === "yes") loadLinks(next.match_id);
  }

  // ---- "Show me my moves": the game's list of legal moves, drawn on the board -------------
  // Shown until the board or the verdicts change (the next verdict), then the plain board.
  let movesFor = null;

  function movesKey(s) {
    return `${s.match_id}:${(s.verdicts || []).length}:${JSON.stringify(s.board)}`;
  }

  function renderLegalMoves(next) {
    const offered = Boolean(next.offers_moves) && next.status === "playing";
    if (movesFor && (!offered || movesFor !== movesKey(next))) hideLegalMoves();
    $("show-moves").hidden = !offered;
  }

  function hideLegalMoves() {
    movesFor = null;
    $("legal-moves").hidden = true;
    $("show-moves").textContent = "Show me my moves";
    $("show-moves").setAttribute("aria-expanded", "false");
    if (snap) $("board").innerHTML = snap.board_svg || "";
  }

  async function toggleLegalMoves() {
    if (movesFor) { hideLegalMoves(); return; }
    const asked = snap && movesKey(snap);
    let data;
    try { data = await call("/api/moves"); } catch (e) { toast(e.message); return; }
    if (!snap || movesKey(snap) !== asked) return; // a verdict came first: those moves are gone
    movesFor = asked;
    $("board").innerHTML = data.board_svg;
    $("legal-title").textContent = data.title;
    $("legal-lines").replaceChildren(...(data.lines || []).map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
    $("legal-moves").hidden = false;
    $("show-moves").textContent = "Hide my moves";
    $("show-moves").setAttribute("aria-expanded", "true");
  }

  function renderDoubt(doubt) {
    $("doubt").hidden = !doubt;
    if (!doubt) return;
    $("doubt-text").textContent = doubt.message;
    $("doubt-board").innerHTML = doubt.board_svg;
  }

  async function answerDoubt(accept) {
    try { render((await call("/api/confirm", { accept })).snapshot); } catch (e) { toast(e.message); }
  }

  function renderSync(sync) {
    const banner = $("sync");
    if (!sync || sync.ok) { banner.hidden = true; return; }
    // The session's message names the cells to put back (the drawing highlights them).
    banner.textContent = sync.message || "The board differs from the game: put it back as drawn.";
    banner.hidden = false;
  }

  function renderVerdict(verdicts, view) {
    const box = $("verdict");
    const last = verdicts[verdicts.length - 1];
    const shoutBox = $("shout-box");
    const reason = $("verdict-reason");
    box.classList.remove("legal", "illegal", "waiting");
    if (!last) {
      box.classList.add("waiting");
      $("verdict-text").textContent = "Waiting for the first move.";
      reason.hidden = true;
      shoutBox.hidden = true;
      return;
    }
    box.classList.add(last.legal ? "legal" : "illegal");
    const who = last.player === null || last.player === undefined ? "" : playerName(view, last.player);
    $("verdict-text").textContent = last.text || `${who}: ${last.legal ? "legal move" : "not legal"}`;
    reason.textContent = last.legal ? "" : last.reason;
    // Most games already spell the reason out in the text; say it once.
    reason.hidden = last.legal || !last.reason || $("verdict-text").textContent.includes(last.reason);
    // A game's big call ("AMOEBA!") with its pictures, e.g. the cards that scored.
    const shout = Boolean(last.shout);
    shoutBox.hidden = !shout;
    $("shout").textContent = last.shout || "";
    $("shout-pictures").innerHTML = shout ? (last.svgs || []).join("") : "";
  }

  function renderStatus(view, status) {
    const players = view.players || [];
    const winner = view.winner;
    const win = $("winner");
    const over = status === "finished" || (winner !== null && winner !== undefined);
    win.hidden = !over;
    if (over) {
      win.textContent = winner === null || winner === undefined
        ? "Game over." : `${playerName(view, winner)} wins!`;
    }
    $("turn").textContent = over || view.to_move === null || view.to_move === undefined
      ? "" : `${playerName(view, view.to_move)} to move`;

    const list = $("scores");
    list.replaceChildren(...players.map((p, i) => {
      const li = document.createElement("li");
      if (i === view.to_move && !over) li.classList.add("to-move");
      const name = document.createElement("span");
      name.textContent = p.name;
      const score = document.createElement("span");
      score.textContent = plural(p.score, "point") + (p.detail ? ` · ${p.detail}` : "");
      li.append(name, score);
      return li;
    }));

    $("meta").textContent = (view.summary || []).join(" · ");
    renderActions(view, over);
  }

  // ---- game actions (pass, challenge, end...): the game names them, the page only asks -------
  let pending = null;

  function renderActions(view, over) {
    const box = $("actions");
    const actions = over ? [] : (view.actions || []);
    box.hidden = actions.length === 0;
    box.replaceChildren(...actions.map((action) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.dataset.event = action.event;
      button.addEventListener("click", () => askAction(action, view));
      return button;
    }));
  }

  function askAction(action, view) {
    if (action.fields === "racks") {
      // one number per player: the tiles left on each rack at the end
      pending = action;
      $("fields-title").textContent = `${action.label}: tiles left on each rack`;
      $("fields").replaceChildren(...(view.players || []).map((p, i) => {
        const label = document.createElement("label");
        label.textContent = p.name;
        const input = document.createElement("input");
        input.type = "number"; input.min = "0"; input.max = "7"; input.value = "0";
        input.inputMode = "numeric"; input.dataset.player = String(i);
        label.append(input);
        return label;
      }));
      $("fields-form").hidden = false;
      return;
    }
    if (window.confirm(`${action.label}?`)) sendEvent({ event: action.event });
  }

  async function sendEvent(payload) {
    try {
      const answer = await call("/api/event", payload);
      render(answer.snapshot);
    } catch (err) {
      toast(err.message);
    }
  }

  $("fields-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const racks = [...$("fields").querySelectorAll("input")].map((i) => Number(i.value) || 0);
    $("fields-form").hidden = true;
    if (pending) sendEvent({ event: pending.event, racks });
    pending = null;
  });
  $("fields-cancel").addEventListener("click", () => {
    $("fields-form").hidden = true;
    pending = null;
  });

  function renderMoves(verdicts, view) {
    const items = verdicts.slice().reverse().map((v) => {
      const li = document.createElement("li");
      li.value = v.turn;
      li.className = v.legal ? "legal" : "illegal";
      const who = v.player === null || v.player === undefined ? "" : `${playerName(view, v.player)}: `;
      li.textContent = v.text || `${who}${v.legal ? "legal" : v.reason}`;
      return li;
    });
    $("moves").replaceChildren(...items);
  }

  async function loadLinks(matchId) {
    linksFor = matchId;
    try {
      const data = await call("/api/links");
      $("links").replaceChildren(...data.links.map((link) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = `/hand/${encodeURIComponent(link.token)}`;
        a.textContent = new URL(a.href, location.href).href;
        a.target = "_blank";
        a.rel = "noopener";
        li.append(`${link.name}: `, a);
        return li;
      }));
    } catch (err) {
      linksFor = undefined;
      toast(`Player links: ${err.message}`);
    }
  }

  // ---- setup --------------------------------------------------------------------------------
  function playerCount() {
    const checked = document.querySelector('input[name="players"]:checked');
    return Number(checked ? checked.value : minPlayers);
  }

  function renderNameInputs() {
    const box = $("names");
    const old = [...box.querySelectorAll("input")].map((i) => i.value);
    const inputs = [];
    for (let i = 0; i < playerCount(); i++) {
      const input = document.createElement("input");
      input.type = "text";
      input.name = `name${i}`;
      input.maxLength = 24;
      input.autocomplete = "off";
      input.placeholder = `Player ${i + 1}`;
      input.setAttribute("aria-label", `Name of player ${i + 1}`);
      input.value = old[i] || "";
      inputs.push(input);
    }
    box.replaceChildren(...inputs);
  }

  async function startGame(event) {
    event.preventDefault();
    const err = $("setup-error");
    err.hidden = true;
    const names = [...$("names").querySelectorAll("input")].map((i) => i.value.trim());
    $("start").disabled = true;
    try {
      const data = await call("/api/start", { players: playerCount(), names });
      setupOpen = false;
      render(data.snapshot);
      $("setup").hidden = true;
      window.scrollTo(0, 0);
    } catch (e) {
      err.textContent = e.message;
      err.hidden = false;
    } finally {
      $("start").disabled = false;
    }
  }

  // ---- corrections --------------------------------------------------------------------------
  async function choicesFor(cell) {
    if (!choices.has(cell)) {
      const data = await call(`/api/choices/${encodeURIComponent(cell)}`);
      choices.set(cell, data.choices);
    }
    return choices.get(cell);
  }

  function ask(text) {
    return new Promise((resolve) => {
      const sheet = $("sheet");
      $("sheet-text").textContent = text;
      sheet.hidden = false;
      const done = (answer) => {
        sheet.hidden = true;
        $("sheet-ok").onclick = null;
        $("sheet-cancel").onclick = null;
        resolve(answer);
      };
      $("sheet-ok").onclick = () => done(true);
      $("sheet-cancel").onclick = () => done(false);
      $("sheet-ok").focus();
    });
  }

  async function tapBoard(event) {
    const tile = event.target.closest("[data-cell]");
    if (!tile || !snap) return;
    if (body.dataset.host !== "yes") { toast("Only the host can correct the board"); return; }
    const cell = tile.dataset.cell;
    const current = tile.dataset.value;
    try {
      const values = await choicesFor(cell);
      if (!values.length) return;
      let value;
      if (values.length <= 4) {
        // two-state cells (a turned tile): a tap means "the other one"
        value = values[(values.indexOf(current) + 1) % values.length];
        if (!(await ask(`Correct ${cell}? ${current} → ${value}`))) return;
      } else {
        // many values (a letter and a height): type it, e.g. 2E; empty for an empty square
        const typed = window.prompt(
          `What is really on ${cell}? (now ${current || "empty"}; e.g. ${values[values.length - 1]}, or nothing for empty)`,
          current);
        if (typed === null) return;
        const wanted = typed.trim().toUpperCase();
        value = values.find((v) => v.toUpperCase() === wanted);
        if (value === undefined) { toast(`${typed.trim()} is not a possible value for ${cell}`); return; }
      }
      const data = await call("/api/correct", { cell, value });
      render(data.snapshot);
      toast(`Corrected ${cell} to ${value}`);
    } catch (e) {
      toast(e.message);
    }
  }

  async function undo() {
    try {
      const data = await call("/api/undo", {});
      render(data.snapshot);
      toast(data.undone ? "Undone" : "Nothing to undo");
    } catch (e) {
      toast(e.message);
    }
  }

  function newGame() {
    setupOpen = true;
    $("setup").hidden = false;
    $("setup").scrollIntoView({ behavior: "smooth" });
    const first = $("names").querySelector("input");
    if (first) first.focus();
  }

  // ---- camera and health --------------------------------------------------------------------
  const camera = $("camera");
  let cameraBusy = false;
  let cameraWanted = null;

  function refreshCamera(tick) {
    cameraWanted = tick;
    if (cameraBusy || !$("camera-box").open) return;
    cameraBusy = true;
    camera.src = `/camera.jpg?n=${encodeURIComponent(String(tick))}`;
  }

  function cameraDone(ok) {
    camera.hidden = !ok;
    $("camera-empty").hidden = ok;
    cameraBusy = false;
    const loaded = new URL(camera.src, location.href).searchParams.get("n");
    if (cameraWanted !== null && String(cameraWanted) !== loaded) refreshCamera(cameraWanted);
  }

  camera.addEventListener("load", () => cameraDone(true));
  camera.addEventListener("error", () => cameraDone(false)); // 204: no frame yet

  function renderHealth(h) {
    const parts = [`Camera ${h.source}: ${h.ok ? "ok" : h.message}`];
    if (h.gate) parts.push(h.gate);
    if (typeof h.fps === "number") parts.push(`${h.fps.toFixed(1)} fps`);
    const line = $("health");
    line.textContent = parts.join(" · ");
    line.classList.toggle("error", !h.ok);
    // a moved board, a lost camera or a finished replay must be seen, not just logged
    const alert = $("camera-alert");
    alert.hidden = !h.message;
    alert.textContent = h.message ? `Camera: ${h.message}` : "";
  }

  async function pollHealth() {
    try { renderHealth(await call("/api/health")); } catch (_) { /* the stream shows offline */ }
  }

  // ---- stream -------------------------------------------------------------------------------
  function connect() {
    window.companionStream({
      snapshot: render,
      camera: (d) => refreshCamera(typeof d === "object" && d !== null ? d.n : d),
      health: renderHealth,
    });
  }

  $("login-form").addEventListener("submit", login);
  $("doubt-yes").addEventListener("click", () => answerDoubt(true));
  $("doubt-no").addEventListener("click", () => answerDoubt(false));
  $("join-box").addEventListener("toggle", () => { if ($("join-box").open) loadJoin(); });
  $("games-box").addEventListener("toggle", () => { if ($("games-box").open) loadGames(); });
  $("import-file").addEventListener("change", importGame);
  $("player-count").addEventListener("change", renderNameInputs);
  $("setup-form").addEventListener("submit", startGame);
  $("board").addEventListener("click", tapBoard);
  $("show-moves").addEventListener("click", toggleLegalMoves);
  $("undo").addEventListener("click", undo);
  $("new-game").addEventListener("click", newGame);
  $("camera-box").addEventListener("toggle", () => {
    if ($("camera-box").open) refreshCamera(Date.now());
  });
  renderNameInputs();
  refreshCamera(Date.now());
  pollHealth();
  setInterval(pollHealth, 5000);
  whoami().then(connect);
})();
