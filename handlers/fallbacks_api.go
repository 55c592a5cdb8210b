package handlers

import (
	"net/http"
	"slices"

	"gateway/models"
)

// fallbackInput is the body of POST /api/fallbacks: it replaces the ordered
// list of one public name and kind; an empty list removes it. The public
// name "*" holds the default fallbacks of every pool.
type fallbackInput struct {
	PublicName string   `json:"public_name" validate:"required,max=500,publicname"`
	Kind       string   `json:"kind" validate:"required,oneof=general context_window content_policy"`
	Targets    []string `json:"targets" validate:"required,max=50,dive,required,max=500,publicname"`
}

// fallbackJSON is one ordered fallback list in API answers.
type fallbackJSON struct {
	PublicName string   `json:"public_name"`
	Kind       string   `json:"kind"`
	Targets    []string `json:"targets"`
}

// setFallbacks handles POST /api/fallbacks.
func (a *App) setFallbacks(w http.ResponseWriter, r *http.Request) {
	var in fallbackInput
	if err := a.decodeBody(w, r, &in); err != nil {
		a.apiError(w, r, err)
		return
	}
	if err := a.store.SetFallbacks(r.Context(), in.PublicName, in.Kind, in.Targets); err != nil {
		a.apiError(w, r, err)
		return
	}
	a.written(w, r, http.StatusCreated, fallbackJSON(in))
}

// listFallbacks handles GET /api/fallbacks: one entry per public name and
// kind; ?public_name= lists one name's only ("*" the defaults).
func (a *App) listFallbacks(w http.ResponseWriter, r *http.Request) {
	q, err := queryParams(r, "public_name")
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	name, filtered := q["public_name"]
	if filtered {
		if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
			a.apiError(w, r, err)
			return
		}
	}
	fs, err := a.store.ListFallbacks(r.Context())
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	if filtered {
		fs = slices.DeleteFunc(fs, func(f models.Fallback) bool { return f.PublicName != name })
	}
	a.writeJSON(w, r, http.StatusOK, groupFallbacks(fs))
}

// groupFallbacks turns rows, ordered by name, kind and position, into lists.
func groupFallbacks(fs []models.Fallback) []fallbackJSON {
	out := []fallbackJSON{}
	for _, f := range fs {
		n := len(out)
		if n == 0 || out[n-1].PublicName != f.PublicName || out[n-1].Kind != f.Kind {
			out = append(out, fallbackJSON{PublicName: f.PublicName, Kind: f.Kind})
			n++
		}
		out[n-1].Targets = append(out[n-1].Targets, f.Target)
	}
	return out
}
