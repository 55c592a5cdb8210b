package handlers

import (
	"net/http"
	"strings"

	"gateway/models"
	"gateway/views"
)

// A key's row on the Keys page edited in place: Edit loads the key list with
// the row as its form, Save answers with the list (422 with the form and its
// errors), as PATCH /api/keys/{id} validates and stores. The secret is never
// shown or changed.

// showEditKey handles GET /keys/{id}/edit.
func (a *App) showEditKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.pageKey(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.keysTable().showEdit(w, r, k.Name, views.KeyForm{ID: k.ID, Values: keyValuesOf(k)})
}

// updateKeyPage handles POST /keys/{id}, the edit form.
func (a *App) updateKeyPage(w http.ResponseWriter, r *http.Request) {
	k, err := a.pageKey(r)
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	in, values, err := a.readKeyForm(r, k.ExpiresAt)
	if err == nil {
		_, err = a.store.UpdateKey(r.Context(), k.ID, func(k *models.VirtualKey) error {
			in.applyTo(k)
			return nil
		})
	}
	a.keysTable().updated(w, r, views.KeyForm{ID: k.ID, Values: values}, in.Name, k.Name, err)
}

// keyValuesOf is a key as its edit form shows it; unset fields are blank.
func keyValuesOf(k *models.VirtualKey) views.KeyValues {
	v := views.KeyValues{
		Name:           k.Name,
		Models:         strings.Join(k.Models, ", "),
		MaxBudgetUSD:   formatOptional(k.MaxBudgetUSD),
		SoftBudgetUSD:  formatOptional(k.SoftBudgetUSD),
		BudgetDuration: k.BudgetDuration,
		RPMLimit:       formatOptional(k.RPMLimit),
		TPMLimit:       formatOptional(k.TPMLimit),
		UserID:         formatID(k.UserID),
		TeamID:         formatID(k.TeamID),
	}
	if k.ExpiresAt != nil {
		v.ExpiresAt = k.ExpiresAt.UTC().Format("2006-01-02T15:04")
	}
	return v
}

func (a *App) pageKey(r *http.Request) (*models.VirtualKey, error) {
	id, err := pathID(r, "key")
	if err != nil {
		return nil, err
	}
	return getForPage(r.Context(), "key", id, a.store.GetKey)
}
