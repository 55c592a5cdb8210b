package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/catalog"
	"gateway/views"
)

// maxPinTTL is the longest pin the page accepts, as the API does.
const maxPinTTL = 365 * 24 * time.Hour

// showSticky shows the Sticky page: live bindings and the pin form.
func (a *App) showSticky(w http.ResponseWriter, r *http.Request) {
	vm, err := a.stickyPage(r, views.StickyForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Sticky", "sticky", views.StickyContent(vm))
}

// stickyPage builds the Sticky page around the pin form.
func (a *App) stickyPage(r *http.Request, form views.StickyForm) (views.StickyPage, error) {
	entries, err := a.store.ListDeployments(r.Context())
	if err != nil {
		return views.StickyPage{}, err
	}
	vm := views.StickyPage{Form: stickyForm(r, form, entries, "")}
	rt, err := a.runtimeState()
	if err != nil {
		return vm, nil // the page says there is no proxy
	}
	vm.Available = true
	byID := make(map[int64]*models.Deployment, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	for _, b := range rt.StickyBindings() {
		// TTLMS is what is left by the proxy's own clock.
		row := views.StickyRow{Model: b.ModelName, DeploymentID: b.DeploymentID, Manual: b.Manual, NotInEffect: b.NotInEffect,
			ExpiresIn: remainingText(time.Duration(b.TTLMS) * time.Millisecond), ExpiresAt: stampText(b.ExpiresAt) + " UTC"}
		if d := byID[b.DeploymentID]; d != nil {
			row.Provider, row.UpstreamModel = d.Provider.Name, d.UpstreamModel
		}
		vm.Bindings = append(vm.Bindings, row)
	}
	return vm, nil
}

// stickyForm fills the form's choices: every exact public name, and the
// enabled members grouped by pool, only the pool serving model when it is
// set and served.
func stickyForm(r *http.Request, f views.StickyForm, entries []models.Deployment, model string) views.StickyForm {
	f.CSRFToken = sessionFrom(r.Context()).csrfToken()
	pool := servingPool(model, entries)
	f.Models, f.Members = nil, nil
	for i := range entries {
		d := &entries[i]
		if !d.Enabled {
			continue
		}
		if !d.IsWildcard() && (len(f.Models) == 0 || f.Models[len(f.Models)-1] != d.PublicName) {
			f.Models = append(f.Models, d.PublicName)
		}
		if pool != "" && d.PublicName != pool {
			continue
		}
		if n := len(f.Members); n == 0 || f.Members[n-1].Label != d.PublicName {
			f.Members = append(f.Members, views.OptionGroup{Label: d.PublicName})
		}
		g := &f.Members[len(f.Members)-1]
		g.Options = append(g.Options, idOption(d.ID, fmt.Sprintf("#%d %s / %s", d.ID, d.Provider.Name, d.UpstreamModel)))
	}
	return f
}

// servingPool is the public name whose pool serves model, by the router's
// rule (the catalog's): "" when none does.
func servingPool(model string, entries []models.Deployment) string {
	if p, _, ok := catalog.New(entries, nil).Route(model); ok {
		return p.Name
	}
	return ""
}

// showStickyMembers answers the deployment select for the model typed into
// the pin form (htmx swaps it in when the model changes).
func (a *App) showStickyMembers(w http.ResponseWriter, r *http.Request) {
	entries, err := a.store.ListDeployments(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	model := strings.TrimSpace(r.URL.Query().Get("model_name"))
	form := stickyForm(r, views.StickyForm{Values: views.StickyValues{ModelName: model}}, entries, model)
	w.Header().Add("Vary", "HX-Request")
	a.render(w, r, http.StatusOK, views.StickyMemberField(form))
}

// pinStickyPage pins a member for the TTL typed (default 2 h).
func (a *App) pinStickyPage(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	in, values, err := a.readPinForm(r)
	if err == nil {
		err = rt.PinSticky(in.ModelName, in.DeploymentID, in.ttl)
		if err == nil {
			a.auditRuntime(r.Context(), "pin", models.AuditSticky, in.ModelName, in.DeploymentID)
		}
		err = pinFormError(err, in)
	}
	var input *inputError
	if errors.As(err, &input) {
		a.rerenderPinForm(w, r, values, input)
		return
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("sticky binding pinned", "model", in.ModelName, "deployment_id", in.DeploymentID, "ttl", in.ttl)
	seeOther(w, r, "/sticky")
}

// pinInput is the pin form, checked.
type pinInput struct {
	stickyPinInput
	ttl time.Duration
}

func (a *App) readPinForm(r *http.Request) (pinInput, views.StickyValues, error) {
	v := views.StickyValues{ModelName: formValue(r, "model_name"), DeploymentID: formValue(r, "deployment_id"), TTL: formValue(r, "ttl")}
	p := formParser{}
	in := pinInput{stickyPinInput: stickyPinInput{ModelName: v.ModelName}, ttl: proxy.DefaultStickyTTL}
	if id := p.id("deployment_id", v.DeploymentID); id != nil {
		in.DeploymentID = *id
	}
	if v.TTL != "" {
		ttl, err := parseTTL(v.TTL)
		if err != nil || ttl <= 0 || ttl > maxPinTTL {
			p.fail("ttl", "must be a duration such as 30m, 2h or 7d, at most 365d")
		}
		in.ttl = ttl
	}
	return in, v, joinInputErrors(p.err, a.validateStruct(&in.stickyPinInput))
}

// parseTTL reads a Go duration, or a whole number of days ("7d").
func parseTTL(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, err
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// pinFormError puts the proxy's refusals on the form's fields.
func pinFormError(err error, in pinInput) error {
	switch {
	case errors.Is(err, proxy.ErrUnknownModel):
		return badInput("model_name", "no pool serves %q", in.ModelName)
	case errors.Is(err, proxy.ErrNotAMember):
		return badInput("deployment_id", "deployment %d is not an enabled member of the pool serving %q", in.DeploymentID, in.ModelName)
	}
	return err
}

func (a *App) rerenderPinForm(w http.ResponseWriter, r *http.Request, values views.StickyValues, input *inputError) {
	entries, err := a.store.ListDeployments(r.Context())
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form := stickyForm(r, views.StickyForm{Values: values, Errors: input.byField()}, entries, values.ModelName)
	a.rerenderForm(w, r, "Sticky", "sticky", views.StickyFormPartial(form), func() (templ.Component, error) {
		vm, err := a.stickyPage(r, form)
		vm.Form = form
		return views.StickyContent(vm), err
	})
}

// clearStickyPage clears one model's binding; one already gone is no error.
func (a *App) clearStickyPage(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	model := formValue(r, "model_name")
	had, err := rt.ClearSticky(model)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	if had {
		a.logger(r.Context()).Info("sticky binding cleared", "model", model)
		a.auditRuntime(r.Context(), "clear", models.AuditSticky, model, 0)
	}
	seeOther(w, r, "/sticky")
}

// clearAllStickyPage clears every binding.
func (a *App) clearAllStickyPage(w http.ResponseWriter, r *http.Request) {
	rt, err := a.runtimeState()
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	if err := rt.ClearAllSticky(); err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("all sticky bindings cleared")
	a.auditRuntime(r.Context(), "clear", models.AuditSticky, "*", 0)
	seeOther(w, r, "/sticky")
}
