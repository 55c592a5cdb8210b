// Package static holds the admin web app's browser assets, embedded in the
// binary: htmx (vendored, pinned), the stylesheet and two small scripts
// (copy buttons; relative times, see reltime.js).
//
// htmx.min.js is htmx.org 2.0.11, copied unmodified from the npm package's
// dist/htmx.min.js (sha256 d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717).
// To upgrade: `npm pack htmx.org@2.0.X` in a temporary directory, copy
// package/dist/htmx.min.js here and update the version and checksum above.
package static

import "embed"

// FS holds the assets, served under /static/ by the admin handlers.
//
//go:embed *.js *.css
var FS embed.FS
