// One Server-Sent-Events connection per page, shown in the header's #conn badge and reopened
// after a drop; both pages (table and private hand) use it.
"use strict";

window.companionStream = function connectStream(handlers) {
  const conn = document.getElementById("conn");
  const es = new EventSource("/api/stream");
  es.addEventListener("open", () => { conn.textContent = "live"; conn.classList.remove("off"); });
  es.addEventListener("error", () => {
    conn.textContent = "reconnecting…";
    conn.classList.add("off");
    if (es.readyState === EventSource.CLOSED) {
      es.close();
      setTimeout(() => connectStream(handlers), 3000);
    }
  });
  for (const [kind, handle] of Object.entries(handlers)) {
    es.addEventListener(kind, (e) => handle(JSON.parse(e.data)));
  }
};
