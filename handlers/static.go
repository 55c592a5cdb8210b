package handlers

import (
	"net/http"
	"strings"

	"gateway/static"
)

// staticFiles serves the embedded assets. URLs carrying the current asset
// version (as the layout writes them) are cached for a year; others are
// revalidated.
func (a *App) staticFiles() http.Handler {
	files := http.FileServerFS(static.FS)
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if r.URL.Query().Get("v") == a.assetVersion {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	}))
}
