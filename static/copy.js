// Copy buttons: <button data-copy-target="id"> copies the text of the element
// with that id. Loaded by the pages that need it; installs itself once.
(function () {
	"use strict";
	if (window.gatewayCopyInstalled) {
		return;
	}
	window.gatewayCopyInstalled = true;
	document.addEventListener("click", function (event) {
		var button = event.target.closest("button[data-copy-target]");
		if (!button) {
			return;
		}
		var source = document.getElementById(button.getAttribute("data-copy-target"));
		if (!source) {
			return;
		}
		// Without a secure context there is no clipboard API: select the
		// text so that the admin can copy it by hand.
		var selectIt = function () {
			window.getSelection().selectAllChildren(source);
			button.textContent = "Selected: press Ctrl+C";
		};
		if (!navigator.clipboard) {
			selectIt();
			return;
		}
		navigator.clipboard.writeText(source.textContent.trim()).then(function () {
			button.textContent = "Copied";
		}, selectIt);
	});
})();
