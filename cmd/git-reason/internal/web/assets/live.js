// The page updates itself when what it shows changes: it polls the digest
// of what it shows (body's data-live, an address of this server; the
// digest it was rendered at is data-head) and, when that moves, fetches
// itself again and swaps in the new <main>, keeping the
// records a reader opened. The server escaped every text of the new page
// as it did the first; nothing here reaches beyond this server.
(function () {
  "use strict";
  // A link to a record on another page of a long timeline (the graph's
  // nodes, a closure, a disputed conclusion) asks this server for the
  // page that holds it.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest('a[href^="#rec-"]') : null;
    if (!a) { return; }
    var id = a.getAttribute("href").slice(5);
    if (document.getElementById("rec-" + id)) { return; }
    ev.preventDefault();
    location.href = "?record=" + encodeURIComponent(id) + "#rec-" + encodeURIComponent(id);
  });
  var body = document.body, src = body.dataset.live;
  if (!src) { return; }
  // What the page showed was read at this digest: a change before the
  // first poll is not missed.
  var last = body.dataset.head || null;
  function swap(html, head) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.querySelector("main"), cur = document.querySelector("main");
    if (!next || !cur) { return; }
    var open = [].map.call(cur.querySelectorAll("li[id] > details[open]"), function (d) { return d.parentNode.id; });
    cur.replaceWith(document.adoptNode(next));
    open.forEach(function (id) {
      var d = document.getElementById(id);
      if (d && d.firstElementChild) { d.firstElementChild.open = true; }
    });
    body.dataset.head = head;
  }
  function tick() {
    fetch(src, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (head) {
        head = head.trim();
        var moved = last !== null && head !== last;
        last = head;
        if (!moved) { return null; }
        return fetch(location.href, { cache: "no-store", credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
          .then(function (html) { swap(html, head); });
      })
      .catch(function () { /* the server stopped or refused: try again later */ })
      .then(function () { setTimeout(tick, 1500); });
  }
  tick();
})();
