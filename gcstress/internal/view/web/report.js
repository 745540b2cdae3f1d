// report.js: report.html's page. The run's data is the JSON in the
// script element #gcstress-data (written by gcstress.WriteHTML); nothing
// is fetched. window.gcstressReport holds what was drawn, for tests.
(function () {
  "use strict";
  var G = window.gcstress;
  var data = JSON.parse(document.getElementById("gcstress-data").textContent);
  var store = new G.Store();
  (data.scenarios || []).forEach(function (sc) { store.load(sc); });

  var meta = document.getElementById("meta");
  (data.meta || []).forEach(function (m) {
    var li = meta.appendChild(G.el("li"));
    li.appendChild(G.el("b", null, m[0] + ": "));
    li.appendChild(document.createTextNode(m[1]));
  });

  var tables = document.getElementById("tables");
  (data.tables || []).forEach(function (t) {
    if (!t.rows || t.rows.length === 0) { return; }
    tables.appendChild(G.el("h2", null, t.title));
    if (t.note) { tables.appendChild(G.el("p", "note", t.note)); }
    tables.appendChild(G.table(t.header, t.rows));
  });

  drawThroughput(document.getElementById("throughput"), data.throughput);
  (data.readers || []).forEach(function (rc) { drawReaders(document.getElementById("readers"), rc); });
  var charts = new G.Charts(document.getElementById("charts"));
  charts.update(store);

  var acc = document.getElementById("accounts");
  (data.accounts || []).forEach(function (a) {
    acc.appendChild(G.el("h3", null, a.name));
    acc.appendChild(G.el("pre", "account", a.text));
  });
  if (!data.accounts || data.accounts.length === 0) { acc.appendChild(G.el("p", "note", "No profiles were captured (-profile, -flight).")); }
  document.getElementById("rules").textContent = data.rules || "";

  // drawThroughput: MB/s by value size, one line per kind, on a log scale
  // so that 10 B and 10 KB values are both readable; failed runs are gaps.
  function drawThroughput(box, tp) {
    if (!tp || !tp.values || tp.values.length === 0) { box.appendChild(G.el("p", "note", "No matrix scenarios.")); return; }
    var xs = tp.values.map(function (_, i) { return i; });
    var series = [{ label: "value", value: function (u, v) { return v === null ? "-" : tp.values[v]; } }];
    var d = [xs];
    tp.kinds.forEach(function (k, i) {
      series.push({ label: k.kind, stroke: G.colourOf(k, i), width: 2, points: { show: true, size: 7 }, spanGaps: false,
        value: function (u, v) { return v === null || v === undefined ? "failed/-" : v.toFixed(1) + " MB/s"; } });
      d.push(k.mbps.map(function (v) { return v > 0 ? v : null; }));
    });
    new uPlot({
      title: "Random write throughput by value size (MB/s, log scale; failed = gap)", width: Math.max(280, Math.min(900, box.clientWidth || 900)), height: 300,
      series: series, scales: { x: { time: false, range: [-0.3, xs.length - 0.7] }, y: { distr: 3 } },
      axes: [{ label: "value size", splits: function () { return xs; }, values: function (u, v) { return v.map(function (i) { return tp.values[i] || ""; }); } },
        { label: "MB/s" }]
    }, d, box);
  }

  // drawReaders: one mix's read latency from intended start, in and
  // outside mark (p99 solid, p50 dashed), per scenario, on a log scale.
  function drawReaders(box, rc) {
    box.appendChild(G.el("h2", null, rc.title));
    var holder = box.appendChild(G.el("div"));
    var xs = rc.labels.map(function (_, i) { return i; });
    var series = [{ label: "scenario", value: function (u, v) { return v === null ? "-" : rc.labels[v]; } }];
    var d = [xs];
    rc.series.forEach(function (s) {
      series.push({ label: s.label, stroke: s.color, width: 2, dash: s.dash ? [6, 4] : undefined, points: { show: true, size: 7 },
        value: function (u, v) { return v === null || v === undefined ? "-" : v.toFixed(1) + " µs"; } });
      d.push(s.ns.map(function (v) { return v > 0 ? v / 1000 : null; }));
    });
    new uPlot({
      title: rc.title, width: Math.max(280, Math.min(900, box.clientWidth || 900)), height: 300,
      series: series, scales: { x: { time: false, range: [-0.3, xs.length - 0.7] }, y: { distr: 3 } },
      axes: [{ label: "scenario", splits: function () { return xs; }, values: function (u, v) { return v.map(function (i) { return rc.labels[i] || ""; }); } },
        { label: "µs from intended start" }]
    }, d, holder);
  }

  window.gcstressReport = { scenarios: store.list.length, points: store.points, charts: G.stats().charts };
})();
