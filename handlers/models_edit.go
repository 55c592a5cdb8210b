package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"gateway/models"
	"gateway/views"
)

// The Models page's inline edits. Each answers htmx with the whole group of
// the public name it changed (so that a new weight updates every member's
// share), a form that fails with the group re-rendered around its error (422,
// which the layout's htmx-config swaps), and a browser without htmx with a
// 303 back to /models, or the whole page around the error.

// inlineEdit is an inline form of the Models page that comes back with an
// error: which form, what was typed and what is wrong.
type inlineEdit struct {
	publicName string
	entryID    int64  // weight and enabled forms
	field      string // "weight", "enabled" or "fallback"
	kind       string // fallback forms
	value      string
	msg        string
	// errors by field, for the forms of several fields ("entry", "settings")
	errors    map[string]string
	values    views.ModelEntryValues // "entry"
	settings  views.PoolSettingsForm // "settings"
	providers []views.Option         // "entry", filled in by applyEdit
}

// setEntryWeight handles POST /models/{id}/weight; an empty weight is unset.
func (a *App) setEntryWeight(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	raw := formValue(r, "weight")
	weight, err := a.parseWeight(raw)
	if err == nil {
		_, err = a.store.UpdateDeployment(r.Context(), d.ID, func(d *models.Deployment) error {
			d.Weight = weight
			return nil
		})
	}
	a.edited(w, r, err, &inlineEdit{publicName: d.PublicName, entryID: d.ID, field: "weight", value: raw})
}

// parseWeight reads the weight field: nil when blank (unset), else a number
// of 0 or more.
func (a *App) parseWeight(raw string) (*float64, error) {
	p := formParser{}
	weight := p.float("weight", raw)
	if p.err != nil {
		return nil, p.err
	}
	if weight == nil {
		return nil, nil
	}
	if err := a.validateVar("weight", *weight, "gte=0"); err != nil {
		return nil, err
	}
	return weight, nil
}

// setEntryEnabled handles POST /models/{id}/enabled with enabled=true|false.
func (a *App) setEntryEnabled(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	enabled, err := strconv.ParseBool(r.PostFormValue("enabled"))
	if err != nil {
		a.pageError(w, r, badInput("enabled", "must be true or false"))
		return
	}
	_, err = a.store.UpdateDeployment(r.Context(), d.ID, func(d *models.Deployment) error {
		d.Enabled = enabled
		return nil
	})
	a.edited(w, r, err, &inlineEdit{publicName: d.PublicName, entryID: d.ID, field: "enabled"})
}

// deleteEntry handles POST /models/{id}/delete (the page asks first, with
// hx-confirm). When it was the last entry of its name the group goes away.
func (a *App) deleteEntry(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err == nil {
		err = a.store.DeleteDeployment(r.Context(), d.ID)
	}
	if a.reloaded(w, r, err) {
		a.showGroup(w, r, d.PublicName)
	}
}

// setFallbacksForm handles POST /models/fallbacks: one public name's list of
// one kind, targets separated by commas or newlines, in order. Reordering is
// editing the list; an empty list removes it.
func (a *App) setFallbacksForm(w http.ResponseWriter, r *http.Request) {
	raw := r.PostFormValue("targets")
	in := fallbackInput{
		PublicName: formValue(r, "public_name"),
		Kind:       r.PostFormValue("kind"),
		Targets:    splitTargets(raw),
	}
	// The name and kind are the form's own hidden fields: wrong ones are a
	// bad request, not something to show next to the targets.
	if err := a.validateVar("public_name", in.PublicName, "required,max=500,publicname"); err != nil {
		a.pageError(w, r, err)
		return
	}
	if err := a.validateVar("kind", in.Kind, "required,oneof=general context_window content_policy"); err != nil {
		a.pageError(w, r, err)
		return
	}
	err := a.validateStruct(&in)
	if err == nil {
		err = a.store.SetFallbacks(r.Context(), in.PublicName, in.Kind, in.Targets)
	}
	a.edited(w, r, targetsError(err, in.Targets), &inlineEdit{publicName: in.PublicName, field: "fallback", kind: in.Kind, value: raw})
}

// splitTargets splits on commas and newlines; blanks are dropped.
func splitTargets(raw string) []string {
	targets := []string{} // not nil: an empty list is valid and removes the list
	for _, t := range strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if t = strings.TrimSpace(t); t != "" {
			targets = append(targets, t)
		}
	}
	return targets
}

// targetsError words the validator's "targets[1]: …" by the target itself,
// since the form has one field for them all.
func targetsError(err error, targets []string) error {
	var input *inputError
	if !errors.As(err, &input) {
		return err
	}
	out := &inputError{}
	for _, f := range input.fields {
		var i int
		if _, scanErr := fmt.Sscanf(f.Field, "targets[%d]", &i); scanErr == nil && i >= 0 && i < len(targets) {
			f.Message = fmt.Sprintf("%q %s", targets[i], f.Message)
		}
		f.Field = "targets"
		out.fields = append(out.fields, f)
	}
	return out
}

// formEntry is the entry named by the URL's {id}.
func (a *App) formEntry(r *http.Request) (*models.Deployment, error) {
	id, err := pathID(r, "model entry")
	if err != nil {
		return nil, err
	}
	return a.store.GetDeployment(r.Context(), id)
}

// edited finishes an inline edit whose write returned err: bad input goes
// back into the form, anything else is an error page; a success reloads the
// routing table and shows the group.
func (a *App) edited(w http.ResponseWriter, r *http.Request, err error, edit *inlineEdit) {
	if storeErr, ok := storeInputError(err); ok {
		err = storeErr
	}
	var input *inputError
	if errors.As(err, &input) {
		edit.msg = inlineMessage(input)
		edit.errors = input.byField()
		a.rerenderEdit(w, r, edit)
		return
	}
	if a.reloaded(w, r, err) {
		a.showGroup(w, r, edit.publicName)
	}
}

// inlineMessage is every problem of a one-field form in one line, without
// the field's name, which the form shows already.
func inlineMessage(input *inputError) string {
	parts := make([]string, len(input.fields))
	for i, f := range input.fields {
		parts[i] = f.Message
	}
	return strings.Join(parts, "; ")
}

// showGroup answers a successful edit: htmx gets the group of name (or has
// it removed when it is gone), a browser a 303 to the Models page.
func (a *App) showGroup(w http.ResponseWriter, r *http.Request, name string) {
	if !isHTMX(r) {
		seeOther(w, r, "/models")
		return
	}
	a.renderGroup(w, r, http.StatusOK, name, nil)
}

// rerenderEdit shows an inline form with its error: the group alone for
// htmx, the whole page otherwise; 422 either way.
func (a *App) rerenderEdit(w http.ResponseWriter, r *http.Request, edit *inlineEdit) {
	if isHTMX(r) {
		a.renderGroup(w, r, http.StatusUnprocessableEntity, edit.publicName, edit)
		return
	}
	vm, err := a.modelsView(r, views.ModelEntryForm{}, edit)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusUnprocessableEntity, "Models", "models", views.ModelsContent(vm))
}

// renderGroup renders the group of one public name for htmx. A group that
// no longer exists (its last entry deleted) is removed from the page.
func (a *App) renderGroup(w http.ResponseWriter, r *http.Request, status int, name string, edit *inlineEdit) {
	g, err := a.poolGroupNamed(r, name, edit)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	w.Header().Add("Vary", "HX-Request")
	if g == nil {
		w.Header().Set("HX-Reswap", "delete")
		w.WriteHeader(http.StatusOK)
		return
	}
	a.render(w, r, status, views.PoolGroupPartial(*g))
}

// The Models page's edit form of one entry: every field but the public name
// (moving an entry to another pool is deleting and adding it). The Edit
// button loads the group with the row as its form; Save answers like every
// inline edit (above); Cancel loads the group as it is.

// showEntryEdit handles GET /models/{id}/edit.
func (a *App) showEntryEdit(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	edit := &inlineEdit{publicName: d.PublicName, entryID: d.ID, field: "entry", values: entryValuesOf(d)}
	if isHTMX(r) {
		a.renderGroup(w, r, http.StatusOK, d.PublicName, edit)
		return
	}
	vm, err := a.modelsView(r, views.ModelEntryForm{}, edit)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.renderPage(w, r, http.StatusOK, "Models", "models", views.ModelsContent(vm))
}

// showEntryGroup handles GET /models/{id}/view, the edit form's Cancel.
func (a *App) showEntryGroup(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.showGroup(w, r, d.PublicName)
}

// updateEntryForm handles POST /models/{id}, the edit form: the same input
// and validation as PATCH /api/models/{id}, with every field sent (a blank
// optional field is unset).
func (a *App) updateEntryForm(w http.ResponseWriter, r *http.Request) {
	d, err := a.formEntry(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	form, values, parseErr := parseModelEntryForm(r)
	_, err = a.store.UpdateDeployment(r.Context(), d.ID, func(cur *models.Deployment) error {
		// Every field but the public name is the form's.
		in := form
		in.PublicName = cur.PublicName
		in.Enabled = &values.Enabled
		if err := joinInputErrors(parseErr, a.validateStruct(&in)); err != nil {
			return err
		}
		in.applyTo(cur)
		return nil
	})
	values.PublicName = d.PublicName
	a.edited(w, r, err, &inlineEdit{publicName: d.PublicName, entryID: d.ID, field: "entry", values: values})
}

// entryValuesOf is an entry as its edit form shows it; unset fields are blank.
func entryValuesOf(d *models.Deployment) views.ModelEntryValues {
	v := views.ModelEntryValues{
		PublicName:      d.PublicName,
		ProviderID:      strconv.FormatInt(d.ProviderID, 10),
		UpstreamModel:   d.UpstreamModel,
		Weight:          formatOptional(d.Weight),
		CooldownSeconds: optionalInt(d.CooldownSeconds),
		TimeoutSeconds:  optionalInt(d.TimeoutSeconds),
		ContextWindow:   optionalInt(d.ContextWindow),
		Prices:          priceFormValues(d.Prices),
		BaseModel:       d.BaseModel,
		RPMLimit:        optionalInt(d.RPMLimit),
		TPMLimit:        optionalInt(d.TPMLimit),
		Priority:        strconv.Itoa(d.Priority),
		Enabled:         d.Enabled,
	}
	return v
}

// applyTo puts the typed value and the error into the form it came from.
func (e *inlineEdit) applyTo(g *views.PoolGroup) {
	if e.field == "fallback" {
		for i := range g.Fallbacks {
			if g.Fallbacks[i].Kind == e.kind {
				g.Fallbacks[i].Input, g.Fallbacks[i].Error = e.value, e.msg
			}
		}
		return
	}
	if e.field == "settings" {
		g.Settings = e.settings
		g.Settings.Errors = e.errors
		return
	}
	for i := range g.Members {
		m := &g.Members[i]
		if m.ID != e.entryID {
			continue
		}
		switch e.field {
		case "entry":
			m.Edit = &views.ModelEntryForm{
				IDPrefix: "edit-" + strconv.FormatInt(m.ID, 10) + "-", CSRFToken: g.CSRFToken,
				Providers: e.providers, Values: e.values, Errors: e.errors,
			}
		case "weight":
			m.WeightInput, m.WeightError = e.value, e.msg
		default:
			m.ToggleError = e.msg
		}
	}
}
