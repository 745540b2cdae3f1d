// report.js: report.html's page. The run's data is the JSON in the
// script element #gcstress-data (written by gcstress.WriteHTML); nothing
// is fetched. window.gcstressReport holds what was drawn, for tests.
(function () {
  "use strict";
  var G = window.gcstress;
  var data = JSON.parse(document.getElementById("gcstress-data").textContent);
  var store = new G.Store();
  (data.scenarios || []).forEach(function (sc) { store.load(sc); });

  document.getElementById("headline").textContent = data.headline || "";
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
  var frontiers = drawFrontier(document.getElementById("frontier"), data.frontier);
  var mmuCurves = drawMMU(document.getElementById("mmu"), data.mmu);
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

  // drawMMU: the minimum mutator utilization of every traced scenario,
  // 0 to 1 against the window (ms) on a log scale. It returns how many
  // curves it drew.
  function drawMMU(box, m) {
    if (!m || !m.series || m.series.length === 0) { return 0; }
    var title = "Minimum mutator utilization (runtime trace)";
    box.appendChild(G.el("h2", null, title));
    box.appendChild(G.el("p", "note", "Per window length, the least share of the CPU the program's goroutines had in any window of that length; the collector's pauses, background mark workers and assists taken out. Higher is better."));
    var holder = box.appendChild(G.el("div"));
    var series = [{ label: "window ms" }];
    var d = [m.windows_ms];
    m.series.forEach(function (s) {
      series.push({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 5 },
        value: function (u, v) { return v === null || v === undefined ? "-" : v.toFixed(3); } });
      d.push(s.util);
    });
    new uPlot({
      title: title, width: Math.max(280, Math.min(900, box.clientWidth || 900)), height: 300,
      series: series, scales: { x: { time: false, distr: 3 }, y: { range: [0, 1] } },
      axes: [{ label: "window (ms, log scale)" }, { label: "MMU" }]
    }, d, holder);
    return m.series.length;
  }

  // drawFrontier: per kind, GC CPU per GB against peak RSS, each point
  // labelled with its setting (GOGC/GOMEMLIMIT): the Pareto set joined in
  // the kind's colour, dominated points hollow, inconclusive grey, failed
  // red; the container and its budget less headroom as vertical lines; the
  // recommended point ringed. It returns how many charts it drew.
  function drawFrontier(box, fronts) {
    if (!fronts || fronts.length === 0) { return 0; }
    box.appendChild(G.el("h2", null, "Frontier: GC CPU per GB against peak RSS"));
    box.appendChild(G.el("p", "note", "One point per GOGC/GOMEMLIMIT setting (labels: GOGC/GOMEMLIMIT in MiB, - for none); the line joins the Pareto set; red: failed, grey: inconclusive; the ring: the recommended setting."));
    var none = function () { return null; };
    var measured = function (c) { return c === "healthy" || c === "elevated" || c === "degraded"; };
    fronts.forEach(function (f) {
      var pts = f.points.slice().sort(function (a, b) { return a.rss_mib - b.rss_mib; });
      var col = function (pred) { return pts.map(function (p) { return pred(p) ? p.gc : null; }); };
      var maxX = 0, maxY = 0;
      pts.forEach(function (p) { maxX = Math.max(maxX, p.rss_mib); maxY = Math.max(maxY, p.gc); });
      maxX = Math.max(maxX * 1.1, (f.container_mib || 0) * 1.05, 1);
      var data = [pts.map(function (p) { return p.rss_mib; }),
        col(function (p) { return p.pareto; }),
        col(function (p) { return !p.pareto && measured(p.class); }),
        col(function (p) { return p.class === "inconclusive" || p.class === "interrupted"; }),
        col(function (p) { return p.class === "failed"; })];
      var fmt = function (u, v) { return v === null || v === undefined ? "-" : v.toFixed(3) + " s/GB"; };
      var series = [{ label: "peak RSS MiB" },
        { label: f.kind + " Pareto set", stroke: f.color, width: 2, spanGaps: true, points: { show: true, size: 8, fill: f.color }, value: fmt },
        { label: "dominated", stroke: f.color, paths: none, points: { show: true, size: 7, fill: "#fff" }, value: fmt },
        { label: "inconclusive", stroke: "#888", paths: none, points: { show: true, size: 7, fill: "#bbb" }, value: fmt },
        { label: "failed", stroke: "#b71c1c", paths: none, points: { show: true, size: 9, fill: "#b71c1c" }, value: fmt }];
      var draw = function (u) {
        var ctx = u.ctx, top = u.bbox.top, bottom = u.bbox.top + u.bbox.height;
        ctx.save();
        ctx.font = (10 * devicePixelRatio) + "px sans-serif";
        ctx.fillStyle = "#000";
        pts.forEach(function (p) {
          var x = u.valToPos(p.rss_mib, "x", true), y = u.valToPos(p.gc, "y", true);
          ctx.fillText(p.label, x + 6 * devicePixelRatio, y - 4 * devicePixelRatio);
          if (f.recommended && p.label === f.recommended.label) {
            ctx.beginPath(); ctx.lineWidth = 2 * devicePixelRatio; ctx.strokeStyle = "#000";
            ctx.arc(x, y, 9 * devicePixelRatio, 0, 2 * Math.PI); ctx.stroke();
          }
        });
        [[f.container_mib, [], "container"], [f.budget_mib, [6, 4], "less headroom"]].forEach(function (l) {
          if (!l[0]) { return; }
          var x = u.valToPos(l[0], "x", true);
          ctx.beginPath(); ctx.setLineDash(l[1].map(function (d) { return d * devicePixelRatio; }));
          ctx.lineWidth = devicePixelRatio; ctx.strokeStyle = "#000";
          ctx.moveTo(x, top); ctx.lineTo(x, bottom); ctx.stroke();
          ctx.fillText(l[2] + " " + l[0].toFixed(0) + " MiB", x + 3 * devicePixelRatio, top + (l[2] === "container" ? 12 : 24) * devicePixelRatio);
        });
        ctx.restore();
      };
      var sect = box.appendChild(G.el("div", "chart"));
      new uPlot({
        title: f.kind + ": GC CPU-s per GB against peak RSS (MiB)", width: Math.max(280, Math.min(900, box.clientWidth || 900)), height: 320,
        series: series, scales: { x: { time: false, range: [0, maxX] }, y: { range: [0, Math.max(maxY * 1.15, 1e-3)] } },
        axes: [{ label: "peak RSS MiB" }, { label: "GC CPU-s per GB" }], hooks: { draw: [draw] }
      }, data, sect);
    });
    return fronts.length;
  }

  window.gcstressReport = { scenarios: store.list.length, points: store.points, charts: G.stats().charts, frontiers: frontiers, mmu: mmuCurves };
})();
