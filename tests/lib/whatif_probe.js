/* Injected by tests/whatif_chart.sh into a copy of whatif.html (never part of the page): whatifProbe, run by
 * tests/lib/whatif_walk.js at each fragment it walks (or, without a walk, once the page has computed:
 * <body data-rc>), measures every text of its charts with the browser's own layout (getBBox) and
 * writes what it found to <body data-probe> as JSON: per chart its tick marks, the texts that leave the chart
 * and the pairs of texts that overlap; the text of every money cell of the options table and of the lines
 * that say why a cell is "-".
 * SPDX-License-Identifier: GPL-3.0-or-later */
window.whatifProbe = function () {
	var charts = [];
	document.querySelectorAll("#charts svg").forEach(function (s) {
		var W = +s.getAttribute("width"), H = +s.getAttribute("height"), boxes = [], outside = [], over = [];
		s.querySelectorAll("text").forEach(function (t) {
			var b = t.getBBox();
			boxes.push({t: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height});
		});
		boxes.forEach(function (b, i) {
			if (b.x < -0.5 || b.y < -0.5 || b.x + b.w > W + 0.5 || b.y + b.h > H + 0.5) outside.push(b.t);
			for (var j = 0; j < i; j++) {
				var o = boxes[j], e = 0.5; /* boxes that touch do not overlap */
				if (b.x + e < o.x + o.w && o.x + e < b.x + b.w && b.y + e < o.y + o.h && o.y + e < b.y + b.h)
					over.push(b.t + " / " + o.t);
			}
		});
		charts.push({id: s.id, texts: boxes.length, ticks_x: s.querySelectorAll(".tick-x").length,
			     ticks_y: s.querySelectorAll(".tick-y").length, outside: outside, overlaps: over});
	});
	var money = [];
	document.querySelectorAll("#options tr").forEach(function (tr) {
		var r = {};
		tr.querySelectorAll("td[data-col$='_usd']").forEach(function (td) { r[td.getAttribute("data-col")] = td.textContent; });
		if (Object.keys(r).length) money.push(r);
	});
	var why = document.getElementById("unpriced");
	document.body.setAttribute("data-probe", JSON.stringify({charts: charts, money: money,
		unpriced: why ? why.textContent : null}));
};
(function wait() {
	if (window.WHATIF_FRAGS) return; /* whatif_walk.js probes at each fragment */
	if (!document.body.hasAttribute("data-rc")) { setTimeout(wait, 50); return; }
	window.whatifProbe();
})();
