package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"gateway/models"
	"gateway/views"
)

// The Models page's edit form of one entry: every field but the public name
// (moving an entry to another pool is deleting and adding it). The Edit
// button loads the group with the row as its form; Save answers like every
// inline edit (see model_edits.go); Cancel loads the group as it is.

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
		in := modelEntryInputOf(cur)
		in.ProviderID = form.ProviderID
		in.UpstreamModel = form.UpstreamModel
		in.Weight = form.Weight
		in.CooldownSeconds = form.CooldownSeconds
		in.TimeoutSeconds = form.TimeoutSeconds
		in.ContextWindow = form.ContextWindow
		in.priceFields, in.BaseModel = form.priceFields, form.BaseModel
		in.RPMLimit, in.TPMLimit, in.Priority = form.RPMLimit, form.TPMLimit, form.Priority
		in.Enabled = &values.Enabled
		if err := withParseErrors(parseErr, a.validateStruct(&in)); err != nil {
			return err
		}
		in.applyTo(cur)
		return nil
	})
	values.PublicName = d.PublicName
	a.edited(w, r, err, &inlineEdit{publicName: d.PublicName, entryID: d.ID, field: "entry", values: values})
}

// withParseErrors puts the form's parse errors before the validator's:
// "must be a number" says more than "is required".
func withParseErrors(parseErr *inputError, err error) error {
	if parseErr == nil {
		return err
	}
	var input *inputError
	if errors.As(err, &input) {
		return &inputError{fields: append(append([]fieldError{}, parseErr.fields...), input.fields...)}
	}
	if err != nil {
		return err
	}
	return parseErr
}

// entryValuesOf is an entry as its edit form shows it; unset fields are blank.
func entryValuesOf(d *models.Deployment) views.ModelEntryValues {
	v := views.ModelEntryValues{
		PublicName:      d.PublicName,
		ProviderID:      strconv.FormatInt(d.ProviderID, 10),
		UpstreamModel:   d.UpstreamModel,
		Weight:          optionalNumber(d.Weight),
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

func optionalNumber(f *float64) string {
	if f == nil {
		return ""
	}
	return formatNumber(*f)
}

func optionalInt(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}
