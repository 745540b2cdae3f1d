// gcstress.js: the charts, health strips and tables shared by report.html
// and the live page. It needs uPlot (loaded before it) and defines
// window.gcstress: Store (the windows of every scenario), Charts (one block
// per scenario group: a uPlot chart per panel, kind toggles, health strips)
// and table/account helpers. State for tests: gcstress.stats() returns the
// number of charts drawn and of windows held.
(function () {
  "use strict";

  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
  var CLASS_COLORS = { healthy: "#66bb6a", elevated: "#ffca28", degraded: "#ff7043", failed: "#b71c1c" };
  var FIELDS = ["t", "mbps", "gc", "assist", "live", "objects", "goal", "limit", "rss", "p99", "cls"];

  // PANELS are the charts of a group, top to bottom. series(s) gives the
  // y arrays a scenario contributes and their dash patterns. The heap panel
  // draws heap object bytes: the figure the "heap above goal" rule compares
  // with the goal. The RSS panel draws the scenario's hard RSS cap, if any.
  var PANELS = [
    { title: "MB/s (key+value, MB = 10^6 B)", series: function (s) { return [[s.mbps, null, ""]]; } },
    {
      title: "MiB: heap object bytes (/gc/heap/objects:bytes, solid; what \"heap above goal\" compares), heap goal (dashed), GOMEMLIMIT (dotted)",
      series: function (s) { return [[s.objects, null, ""], [s.goal, [6, 4], " goal"], [s.limit, [2, 4], " limit"]]; }
    },
    { title: "GC CPU % of busy CPU (per span of windows holding a completed cycle)", series: function (s) { return [[s.gc, null, ""]]; } },
    { title: "assist % of busy CPU", series: function (s) { return [[s.assist, null, ""]]; } },
    {
      title: "RSS MiB (solid; the hard RSS cap dashed)",
      series: function (s) {
        var out = [[s.rss, null, ""]];
        if (s.rssCap > 0) { out.push([s.t.map(function () { return s.rssCap; }), [6, 4], " RSS cap"]); }
        return out;
      }
    },
    { title: "Put latency p99, ms (timed Puts)", series: function (s) { return [[s.p99, null, ""]]; }, fmt: latency }
  ];

  // latency is a p99 in ms as a reader reads it: µs below a millisecond
  // (0.005 ms is "5 µs"), ms up to a second, then s.
  function latency(v) {
    if (v < 1) { return (v * 1000).toFixed(v < 0.01 ? 1 : 0) + " µs"; }
    if (v < 1000) { return v.toFixed(v < 10 ? 2 : 1) + " ms"; }
    return (v / 1000).toFixed(2) + " s";
  }

  // colourOf is a scenario's colour: its kind's, as the Go side chose it
  // (view.KindColourHex, the same in the PNG charts); the palette by
  // position only for data without one.
  function colourOf(s, i) { return s.color || COLORS[i % COLORS.length]; }

  // repeats[i] counts the scenarios before i in scens drawn in the same
  // colour (failure/heap and stall/heap): their points are filled, so the
  // lines stay apart.
  function repeats(scens) {
    var seen = new Map();
    return scens.map(function (s, i) {
      var c = colourOf(s, i), n = seen.get(c) || 0;
      seen.set(c, n + 1);
      return n;
    });
  }

  var chartsDrawn = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  // Store holds every scenario's windows, in arrival order.
  function Store() { this.byName = new Map(); this.list = []; this.points = 0; }

  // scenario returns the scenario named info.name, created on first sight
  // (a scenario need not be announced before its windows arrive).
  Store.prototype.scenario = function (info) {
    var s = this.byName.get(info.name);
    if (!s) {
      s = { name: info.name, kind: "", color: "", group: "", value: "", env: "", rssCap: 0, cls: [], result: null, verdict: "", progress: 0 };
      FIELDS.forEach(function (f) { s[f] = []; });
      this.byName.set(info.name, s);
      this.list.push(s);
    }
    ["kind", "color", "group", "value", "env"].forEach(function (f) { if (info[f]) { s[f] = info[f]; } });
    return s;
  };

  // add appends one window point (the shape both pages' data use).
  Store.prototype.add = function (p) {
    var s = this.scenario(p);
    FIELDS.forEach(function (f) { s[f].push(p[f] === undefined ? null : p[f]); });
    if (p.progress !== undefined) { s.progress = p.progress; }
    if (p.verdict) { s.verdict = p.verdict; }
    this.points++;
    return s;
  };

  // load fills the store from a scenario with whole arrays (report.html).
  Store.prototype.load = function (sc) {
    var s = this.scenario(sc);
    FIELDS.forEach(function (f) { s[f] = (sc.w && sc.w[f]) || []; });
    s.verdict = sc.class || "";
    s.progress = sc.progress || 0;
    s.rssCap = sc.rss_cap || 0;
    this.points += s.t.length;
    return s;
  };

  function groupOf(s) {
    if (s.group === "matrix") { return "values " + s.value; }
    if (s.group === "failure" || s.group === "stall") { return "failure and stall"; }
    return s.group || "scenarios";
  }

  // labelOf is a scenario's name in legends and toggles: a matrix
  // scenario's kind, with its build environment when it has one (two
  // environments of one kind are two series: "heap env=classic").
  function labelOf(s) {
    if (s.group !== "matrix" || !s.kind) { return s.name; }
    return s.env ? s.kind + " env=" + s.env : s.kind;
  }

  // Charts draws and redraws every group of a Store into root.
  function Charts(root) { this.root = root; this.groups = new Map(); }

  Charts.prototype.update = function (store) {
    var self = this;
    var byGroup = new Map();
    store.list.forEach(function (s) {
      if (s.t.length === 0) { return; }
      var g = groupOf(s);
      if (!byGroup.has(g)) { byGroup.set(g, []); }
      byGroup.get(g).push(s);
    });
    byGroup.forEach(function (scens, name) {
      var g = self.groups.get(name);
      if (!g) {
        g = { box: el("section", "group"), plots: [], n: -1, hidden: new Set() };
        g.box.appendChild(el("h3", null, name));
        g.toggles = g.box.appendChild(el("div", "toggles"));
        g.charts = g.box.appendChild(el("div", "charts"));
        g.strips = g.box.appendChild(el("div", "strips"));
        self.root.appendChild(g.box);
        self.groups.set(name, g);
      }
      self.drawGroup(g, scens);
    });
  };

  Charts.prototype.drawGroup = function (g, scens) {
    if (g.n !== scens.length) {
      g.plots.forEach(function (p) { p.u.destroy(); chartsDrawn--; });
      g.plots = [];
      g.charts.textContent = "";
      PANELS.forEach(function (panel) { g.plots.push(makePlot(g, panel, scens)); });
      drawToggles(g, scens);
      g.n = scens.length;
    } else {
      g.plots.forEach(function (p) { p.u.setData(joined(p.panel, scens)); });
    }
    drawStrips(g, scens);
  };

  function joined(panel, scens) {
    var tables = scens.map(function (s) {
      return [s.t].concat(panel.series(s).map(function (x) { return x[0]; }));
    });
    return uPlot.join(tables);
  }

  function makePlot(g, panel, scens) {
    var series = [{ label: "s" }];
    var rep = repeats(scens);
    scens.forEach(function (s, i) {
      var c = colourOf(s, i);
      var pts = rep[i] > 0 ? { show: true, size: 4 + 2 * rep[i], fill: c } : { show: true, size: 4 };
      panel.series(s).forEach(function (x) {
        series.push({
          label: labelOf(s) + x[2], stroke: c, width: 1.5, dash: x[1] || undefined,
          spanGaps: true, show: !g.hidden.has(s.name), points: pts,
          value: function (u, v) { return v === null || v === undefined ? "-" : panel.fmt ? panel.fmt(v) : v.toFixed(v < 10 ? 2 : 1); }
        });
      });
    });
    var box = g.charts.appendChild(el("div", "chart"));
    var width = Math.max(280, Math.min(1100, (g.box.clientWidth || 900) - 20));
    var opts = {
      title: panel.title, width: width, height: 200, series: series,
      scales: { x: { time: false } }, axes: [{ label: "seconds" }, {}],
      cursor: { drag: { x: true, y: false } }, legend: { live: true }
    };
    var u = new uPlot(opts, joined(panel, scens), box);
    chartsDrawn++;
    return { u: u, panel: panel };
  }

  // drawToggles puts one checkbox per scenario line above the charts: it
  // shows or hides that scenario's series in every chart of the group.
  function drawToggles(g, scens) {
    g.toggles.textContent = "";
    scens.forEach(function (s, i) {
      var lab = el("label", "toggle");
      var cb = lab.appendChild(el("input"));
      cb.type = "checkbox";
      cb.checked = !g.hidden.has(s.name);
      lab.style.color = colourOf(s, i);
      lab.appendChild(document.createTextNode(" " + labelOf(s)));
      cb.addEventListener("change", function () {
        if (cb.checked) { g.hidden.delete(s.name); } else { g.hidden.add(s.name); }
        g.plots.forEach(function (p) {
          var idx = 1;
          scens.forEach(function (o) {
            var n = p.panel.series(o).length;
            for (var k = 0; k < n; k++) { if (o === s) { p.u.setSeries(idx + k, { show: cb.checked }); } }
            idx += n;
          });
        });
      });
      g.toggles.appendChild(lab);
    });
  }

  // drawStrips draws each scenario's health class over time as colour
  // bands on one time axis for the group.
  function drawStrips(g, scens) {
    g.strips.textContent = "";
    var tmax = 0;
    scens.forEach(function (s) { if (s.t.length) { tmax = Math.max(tmax, s.t[s.t.length - 1]); } });
    scens.forEach(function (s) {
      var row = g.strips.appendChild(el("div", "strip"));
      row.appendChild(el("span", "strip-label", labelOf(s) + " (" + (s.verdict || "?") + ")"));
      var c = row.appendChild(el("canvas"));
      c.width = 800;
      c.height = 12;
      var ctx = c.getContext("2d");
      var prev = 0;
      for (var i = 0; i < s.t.length; i++) {
        ctx.fillStyle = CLASS_COLORS[s.cls[i]] || "#bbb";
        var x0 = tmax > 0 ? prev / tmax * c.width : 0;
        var x1 = tmax > 0 ? s.t[i] / tmax * c.width : c.width;
        ctx.fillRect(x0, 0, Math.max(1, x1 - x0), c.height);
        prev = s.t[i];
      }
      c.title = "health over time, 0 to " + tmax.toFixed(1) + " s";
    });
  }

  // TEXT_CELL is the length past which a cell is text that wraps (class
  // "text"), not a figure kept on one line.
  var TEXT_CELL = 32;

  // cell fills td with c: a long text wraps, and a cell naming a health
  // class takes its colour: a short one naming it anywhere, a text only
  // starting with it (a sentence such as "no setting fits: none is
  // healthy" is no healthy cell).
  function cell(td, c) {
    var s = String(c);
    td.textContent = s;
    var text = s.length > TEXT_CELL;
    if (text) { td.classList.add("text"); }
    Object.keys(CLASS_COLORS).forEach(function (k) {
      var at = s.indexOf(k);
      if (at === 0 || (at > 0 && !text)) { td.classList.add("c-" + k); }
    });
    return td;
  }

  // table renders a header and rows as an HTML table inside a box that
  // scrolls sideways when the table is wider than the page.
  function table(header, rows) {
    var box = el("div", "table-wrap");
    var t = box.appendChild(el("table"));
    var tr = t.appendChild(el("thead")).appendChild(el("tr"));
    header.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    var tb = t.appendChild(el("tbody"));
    rows.forEach(function (r) {
      var row = tb.appendChild(el("tr"));
      r.forEach(function (c) { cell(row.appendChild(el("td")), c); });
    });
    return box;
  }

  window.gcstress = {
    Store: Store, Charts: Charts, table: table, cell: cell, el: el, CLASS_COLORS: CLASS_COLORS, colourOf: colourOf,
    stats: function () { return { charts: chartsDrawn }; }
  };
})();
