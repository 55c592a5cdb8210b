package handlers

import (
	"net/http"

	"gateway/views"
)

func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	a.renderPage(w, r, http.StatusNotFound, "Not found", "",
		views.MessageContent(views.Message{Heading: "Not found", Text: "There is no page at " + r.URL.Path + ".", TestID: "not-found"}))
}
