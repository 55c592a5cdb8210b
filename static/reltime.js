// Relative times that stay current.
//
// The convention: a page writes
//
//	<time datetime="2026-12-02T11:46:31Z" data-relative>2026-12-02 11:46 UTC</time>
//
// and this script, loaded by the layout on every page, rewrites the element's
// text as "3m ago" or "in 3d 14h" when the page loads, after every htmx swap
// and every 30 seconds after that. The text the server wrote stays the
// fallback without JavaScript and becomes the element's title (unless it has
// one), so the absolute time is a hover away. datetime must be a time with a
// zone (RFC 3339); an element whose datetime does not parse is left alone.
//
// The wording: under a minute "just now"; under an hour minutes ("3m ago");
// under a day hours and minutes ("2h 5m ago"); beyond that days and hours
// ("in 3d 14h"). A unit that is zero is left out ("in 2d", "1h ago").
(function () {
	"use strict";
	if (window.gatewayRelativeTime) {
		return;
	}

	var MINUTE = 60, HOUR = 3600, DAY = 86400;

	// span words a number of seconds (0 or more) in at most two units.
	function span(s) {
		var parts;
		if (s < HOUR) {
			parts = [[Math.floor(s / MINUTE), "m"]];
		} else if (s < DAY) {
			parts = [[Math.floor(s / HOUR), "h"], [Math.floor(s % HOUR / MINUTE), "m"]];
		} else {
			parts = [[Math.floor(s / DAY), "d"], [Math.floor(s % DAY / HOUR), "h"]];
		}
		return parts.filter(function (p) { return p[0] > 0; })
			.map(function (p) { return p[0] + p[1]; }).join(" ");
	}

	// format words the time t (milliseconds) as seen at now (milliseconds).
	function format(t, now) {
		var s = Math.round((t - now) / 1000);
		if (Math.abs(s) < MINUTE) {
			return "just now";
		}
		return s > 0 ? "in " + span(s) : span(-s) + " ago";
	}

	// update rewrites every <time data-relative> under root (the document
	// by default).
	function update(root) {
		var now = Date.now();
		var els = (root || document).querySelectorAll("time[data-relative][datetime]");
		for (var i = 0; i < els.length; i++) {
			var el = els[i];
			var t = Date.parse(el.getAttribute("datetime"));
			if (isNaN(t)) {
				continue;
			}
			if (!el.hasAttribute("title")) {
				el.setAttribute("title", el.textContent.trim());
			}
			var text = format(t, now);
			if (el.textContent !== text) {
				el.textContent = text;
			}
		}
	}

	window.gatewayRelativeTime = {format: format, update: update};
	if (document.readyState === "loading") {
		document.addEventListener("DOMContentLoaded", function () { update(); });
	} else {
		update();
	}
	// htmx swaps bring new elements with the server's text: word them at once.
	document.addEventListener("htmx:afterSettle", function () { update(); });
	setInterval(function () { update(); }, 30000);
})();
