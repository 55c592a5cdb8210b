package handlers

import (
	"net/http"

	"gateway/views"
)

// comingSoon stands in for a page not built yet, pointing at the API that
// already does its job.
func (a *App) comingSoon(title, active, apiPath string) http.HandlerFunc {
	text := "This page is coming soon."
	if apiPath != "" {
		text += " Meanwhile the management API does it: " + apiPath + "."
	}
	return func(w http.ResponseWriter, r *http.Request) {
		a.renderPage(w, r, http.StatusOK, title, active,
			views.MessageContent(views.Message{Heading: title, Text: text, TestID: "coming-soon"}))
	}
}

func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	a.renderPage(w, r, http.StatusNotFound, "Not found", "",
		views.MessageContent(views.Message{Heading: "Not found", Text: "There is no page at " + r.URL.Path + ".", TestID: "not-found"}))
}
