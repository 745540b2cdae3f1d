// live.js: the live page. It follows the run through the server-sent
// events at ./events (a page opened mid-run first receives what was
// recorded so far) and redraws at most a few times a second.
// window.gcstressLive holds counts of what arrived, for tests.
(function () {
  "use strict";
  var G = window.gcstress;
  var store = new G.Store();
  var charts = new G.Charts(document.getElementById("charts"));
  var status = document.getElementById("status");
  var scenBody = document.getElementById("scenarios");
  var resBody = document.getElementById("results");
  var rows = new Map();
  var live = window.gcstressLive = { lines: 0, done: 0, ended: false, charts: 0, truncated: 0 };
  var pending = false;

  function redraw() {
    if (pending) { return; }
    pending = true;
    setTimeout(function () {
      pending = false;
      charts.update(store);
      store.list.forEach(updateRow);
      live.charts = G.stats().charts;
    }, 250);
  }

  function row(s) {
    var r = rows.get(s.name);
    if (!r) {
      var tr = scenBody.appendChild(G.el("tr"));
      r = { tr: tr, name: tr.appendChild(G.el("td", null, s.name)) };
      r.prog = tr.appendChild(G.el("td")).appendChild(G.el("progress"));
      r.prog.max = 1;
      r.cls = tr.appendChild(G.el("td"));
      r.mbps = tr.appendChild(G.el("td"));
      r.gc = tr.appendChild(G.el("td"));
      rows.set(s.name, r);
    }
    return r;
  }

  function updateRow(s) {
    var r = row(s);
    r.prog.value = s.progress || 0;
    var cls = s.result ? s.result.class : s.verdict;
    r.cls.textContent = cls || "waiting";
    r.cls.className = cls ? "c-" + cls : "";
    var n = s.t.length;
    r.mbps.textContent = n ? Number(s.mbps[n - 1]).toFixed(1) + " MB/s" : "";
    r.gc.textContent = n ? "GC " + Number(s.gc[n - 1] || 0).toFixed(1) + "%" : "";
  }

  function on(es, kind, fn) {
    es.addEventListener(kind, function (e) { fn(JSON.parse(e.data)); });
  }

  var es = new EventSource("events");
  es.onopen = function () { status.textContent = "connected: following the run"; };
  es.onerror = function () { if (!live.ended) { status.textContent = "disconnected; retrying"; } };
  on(es, "begin", function (d) {
    if (live.lines > 0) { location.reload(); return; } // reconnected after being dropped: start afresh
    var meta = document.getElementById("meta");
    meta.textContent = "";
    (d.meta || []).forEach(function (m) { meta.appendChild(G.el("li", null, m[0] + ": " + m[1])); });
    (d.scenarios || []).forEach(function (s) { row(store.scenario(s)); });
  });
  on(es, "scenario", function (d) { row(store.scenario(d)); });
  on(es, "line", function (p) { store.add(p); live.lines++; redraw(); });
  on(es, "truncated", function (d) {
    live.truncated = d.dropped;
    document.getElementById("truncated").textContent = "The server keeps a bounded history: the " + d.dropped + " oldest window(s) were dropped before this page connected.";
  });
  on(es, "done", function (d) {
    var s = store.scenario(d);
    s.result = d;
    s.verdict = d.class; // the strip shows the final class once the scenario ended
    s.progress = d.progress;
    live.done++;
    var tr = resBody.appendChild(G.el("tr"));
    (d.row || []).forEach(function (c) { G.cell(tr.appendChild(G.el("td")), c); });
    tr.children[2].className = "c-" + d.class;
    redraw();
  });
  on(es, "end", function (d) {
    live.ended = true;
    es.close();
    status.textContent = "run finished" + (d.interrupted ? " (interrupted)" : "") + "; results in " + d.out + " (report.html there)";
    redraw();
  });
})();
