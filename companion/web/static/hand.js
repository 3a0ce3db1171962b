// A player's private page: their cards only.  The stream tells us when anything changed (a new
// snapshot version); the cards themselves come from /api/hand/<token>, never from the stream.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const token = document.body.dataset.token;
  let seen = null;
  let loading = null;

  async function load() {
    const res = await fetch(`/api/hand/${encodeURIComponent(token)}`);
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    const error = $("hand-error");
    if (!res.ok) {
      error.textContent = (data && data.error) || `${res.status} ${res.statusText}`;
      error.hidden = false;
      $("items").replaceChildren();
      return;
    }
    error.hidden = true;
    $("hand-title").textContent = data.name;
    $("private-title").textContent = data.title || "Your things";
    const entry = data.entry;
    $("entry").hidden = !entry;
    if (entry) {
      $("entry-label").textContent = entry.label;
      $("entry-text").placeholder = entry.placeholder || "";
    }
    const query = data.query;
    $("query").hidden = !query;
    if (query) {
      $("query-label").textContent = query.label;
      $("query-text").placeholder = query.placeholder || "";
    }
    document.body.dataset.player = String(data.player);
    $("items").replaceChildren(...data.items.map((item) => {
      const li = document.createElement("li");
      li.className = "card";
      li.dataset.item = String(item.id);
      const drawing = document.createElement("div");
      drawing.innerHTML = item.svg;
      const label = document.createElement("p");
      label.className = "label";
      label.textContent = item.label; // the game's words for the card, points included
      li.append(drawing, label);
      return li;
    }));
  }

  async function ask(event) {
    event.preventDefault();
    const text = $("query-text").value;
    const res = await fetch(
      `/api/hand/${encodeURIComponent(token)}/query?text=${encodeURIComponent(text)}`);
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (!res.ok) {
      $("answer-title").textContent = (data && data.error) || `${res.status} ${res.statusText}`;
      $("answers").replaceChildren();
      return;
    }
    $("answer-title").textContent = data.title;
    $("answers").replaceChildren(...data.items.map((item) => {
      const li = document.createElement("li");
      li.textContent = item.label;
      return li;
    }));
  }
  $("query").addEventListener("submit", ask);

  async function enter(event) {
    event.preventDefault();
    const me = await (await fetch("/api/whoami")).json();
    const res = await fetch(`/api/hand/${encodeURIComponent(token)}/entry`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf },
      body: JSON.stringify({ text: $("entry-text").value }),
    });
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    const error = $("entry-error");
    error.hidden = res.ok;
    error.textContent = res.ok ? "" : (data && data.error) || `${res.status} ${res.statusText}`;
    if (res.ok) { $("entry-text").value = ""; load(); }
  }
  $("entry").addEventListener("submit", enter);

  function refresh(snapshot) {
    const key = `${snapshot.match_id}:${snapshot.version}`;
    if (key === seen) return;
    seen = key;
    // Chain loads so a burst of versions never renders an older answer over a newer one.
    loading = (loading || Promise.resolve()).then(load).catch(() => {
      seen = null; // the stream's snapshot on reconnect retries
      $("hand-error").textContent = "Cannot reach the table: retrying.";
      $("hand-error").hidden = false;
    });
  }

  function connect() {
    window.companionStream({ snapshot: refresh });
  }

  connect();
})();
