/* tests/lib/whatif_walk.js: added to a copy of whatif.html by tests/whatif_browser.sh, so that one start of
 * headless Chromium checks the page at several fragments (a start costs seconds; the page recomputes on each
 * change of location.hash, as a reader's edit does). For each fragment of WHATIF_FRAGS, in order (the first
 * is the page as loaded), it waits for the page's answer, runs whatifProbe where the page has it
 * (tests/lib/whatif_probe.js), then keeps a copy of the body as computed (its attributes, scripts left out)
 * in a <textarea class="whatif-snap" data-i="N">; when all are kept it sets <body data-snaps="N">.
 * tests/lib/whatif_dom.py --split writes each copy to a file of its own.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
(function () {
	var i = 0;
	function esc(v) { return v.replace(/&/g, "&amp;").replace(/"/g, "&quot;"); }
	function keep() {
		if (window.whatifProbe) window.whatifProbe();
		var b = document.body.cloneNode(true), attrs = "";
		Array.prototype.forEach.call(document.body.attributes, function (a) {
			if (a.name !== "data-snaps") attrs += " " + a.name + "=\"" + esc(a.value) + "\"";
		});
		Array.prototype.slice.call(b.querySelectorAll("script, textarea.whatif-snap")).forEach(function (e) {
			e.parentNode.removeChild(e);
		});
		var t = document.createElement("textarea");
		t.className = "whatif-snap";
		t.setAttribute("data-i", String(i));
		t.textContent = "<body" + attrs + ">" + b.innerHTML + "</body>";
		document.body.appendChild(t);
		i++;
		if (i === WHATIF_FRAGS.length) {
			document.body.setAttribute("data-snaps", String(i));
			return;
		}
		document.body.removeAttribute("data-rc");
		document.body.removeAttribute("data-probe");
		location.hash = WHATIF_FRAGS[i]; /* the page's hashchange listener recomputes; ours runs after it */
	}
	window.addEventListener("hashchange", function () { setTimeout(keep, 0); });
	(function first() { /* the page as loaded: once the runtime is up and the first answer is in */
		if (window.whatifReady && document.body.hasAttribute("data-rc")) keep();
		else setTimeout(first, 10);
	})();
})();
