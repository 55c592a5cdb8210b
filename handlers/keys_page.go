package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"gateway/models"
	"gateway/views"
)

// keysTable is the Keys page; a key is edited in its row only.
func (a *App) keysTable() *tablePage[views.KeyForm, views.KeysPage] {
	return &tablePage[views.KeyForm, views.KeysPage]{
		app: a, title: "Keys", list: "keys", what: "key",
		build: func(r *http.Request, add views.KeyForm, edit *views.KeyForm) (views.KeysPage, error) {
			vm, err := a.keysPage(r, add)
			vm.Edit = edit
			return vm, err
		},
		prepare: func(r *http.Request, f views.KeyForm, errs map[string]string) (views.KeyForm, error) {
			owners, err := a.ownerNames(r)
			if err != nil {
				return f, err
			}
			if errs != nil {
				f.Errors = errs
			}
			f.CSRFToken = sessionFrom(r.Context()).csrfToken()
			keyFormChoices(&f, owners)
			return f, nil
		},
		content: views.KeysContent, table: views.KeysTable, form: views.KeyFormPartial,
	}
}

// showKeys shows the Keys page.
func (a *App) showKeys(w http.ResponseWriter, r *http.Request) {
	a.keysTable().show(w, r, views.KeyForm{})
}

// keysPage builds the Keys page around the create form, which it gives the
// session's CSRF token (its row buttons post the same token).
func (a *App) keysPage(r *http.Request, form views.KeyForm) (views.KeysPage, error) {
	ctx := r.Context()
	ks, err := a.store.ListKeys(ctx)
	if err != nil {
		return views.KeysPage{}, err
	}
	owners, err := a.ownerNames(r)
	if err != nil {
		return views.KeysPage{}, err
	}
	keyFormChoices(&form, owners)
	form.CSRFToken = sessionFrom(ctx).csrfToken()
	vm := views.KeysPage{Form: form, Keys: make([]views.KeyRow, len(ks))}
	now := time.Now()
	for i := range ks {
		vm.Keys[i] = keyRow(&ks[i], owners, now)
	}
	return vm, nil
}

// ownerNames are the names of users and teams by id.
type ownerNames struct {
	users, teams []views.Option
	user, team   map[int64]string
}

func (a *App) ownerNames(r *http.Request) (ownerNames, error) {
	us, err := a.store.ListUsers(r.Context())
	if err != nil {
		return ownerNames{}, err
	}
	ts, err := a.store.ListTeams(r.Context())
	if err != nil {
		return ownerNames{}, err
	}
	o := ownerNames{user: map[int64]string{}, team: map[int64]string{}}
	for _, u := range us {
		o.user[u.ID] = u.Name
		o.users = append(o.users, idOption(u.ID, u.Name))
	}
	for _, t := range ts {
		o.team[t.ID] = t.Name
		o.teams = append(o.teams, idOption(t.ID, t.Name))
	}
	return o, nil
}

func keyFormChoices(form *views.KeyForm, owners ownerNames) {
	form.Users, form.Teams = owners.users, owners.teams
	form.Periods = budgetPeriods(form.Values.BudgetDuration)
}

func keyRow(k *models.VirtualKey, owners ownerNames, now time.Time) views.KeyRow {
	row := views.KeyRow{
		ID:      k.ID,
		Name:    k.Name,
		Hint:    k.KeyHint,
		Models:  "all",
		Spend:   spendOf(k.SpendUSD, k.MaxBudgetUSD, k.BudgetDuration),
		RPM:     limitText(k.RPMLimit),
		TPM:     limitText(k.TPMLimit),
		Expires: "never",
		Status:  "active",
		Revoked: k.RevokedAt != nil,
		Created: k.CreatedAt.UTC().Format("2006-01-02"),
	}
	if len(k.Models) > 0 {
		row.Models = strings.Join(k.Models, ", ")
	}
	if k.UserID != nil {
		row.User = owners.user[*k.UserID]
	}
	if k.TeamID != nil {
		row.Team = owners.team[*k.TeamID]
	}
	if k.ExpiresAt != nil {
		row.Expires = k.ExpiresAt.UTC().Format("2006-01-02 15:04")
	}
	switch {
	case k.RevokedAt != nil:
		row.Status = "revoked"
	case !k.Active(now):
		row.Status = "expired"
	}
	return row
}

// readKeyForm reads the create or edit form into the API's input, validated
// by the same rules. An expiry must be in the future unless it is kept, the
// key's current one (an edit of an expired key).
func (a *App) readKeyForm(r *http.Request, kept *time.Time) (keyInput, views.KeyValues, error) {
	v := views.KeyValues{
		Name:           formValue(r, "name"),
		Models:         formValue(r, "models"),
		MaxBudgetUSD:   formValue(r, "max_budget_usd"),
		SoftBudgetUSD:  formValue(r, "soft_budget_usd"),
		BudgetDuration: formValue(r, "budget_duration"),
		RPMLimit:       formValue(r, "rpm_limit"),
		TPMLimit:       formValue(r, "tpm_limit"),
		UserID:         formValue(r, "user_id"),
		TeamID:         formValue(r, "team_id"),
		ExpiresAt:      formValue(r, "expires_at"),
	}
	p := formParser{}
	in := keyInput{
		Name:        v.Name,
		Models:      splitList(v.Models),
		budgetInput: p.budget(v.MaxBudgetUSD, v.SoftBudgetUSD, v.BudgetDuration),
		limitsInput: p.limits(v.RPMLimit, v.TPMLimit),
		UserID:      p.id("user_id", v.UserID),
		TeamID:      p.id("team_id", v.TeamID),
	}
	if t := p.time("expires_at", v.ExpiresAt); t != nil {
		if !t.After(time.Now()) && (kept == nil || !t.Equal(kept.UTC().Truncate(time.Minute))) {
			p.fail("expires_at", "must be in the future")
		}
		in.ExpiresAt = &timestamp{*t}
	}
	return in, v, joinInputErrors(p.err, onModelsField(a.validateStruct(&in), in.Models))
}

// onModelsField moves errors about one allowed model ("models[2]", as the
// validator names it) to the form's one models field, naming the model.
func onModelsField(err error, list []string) error {
	var input *inputError
	if !errors.As(err, &input) {
		return err
	}
	for i, f := range input.fields {
		var n int
		if _, scanErr := fmt.Sscanf(f.Field, "models[%d]", &n); scanErr == nil && n >= 0 && n < len(list) {
			input.fields[i] = fieldError{Field: "models", Message: fmt.Sprintf("%q %s", list[n], f.Message)}
		}
	}
	return input
}

// splitList reads a comma list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// createKeyPage creates a key and answers with it, once: 201 with the page
// (or, for htmx, the page's content swapped into #content) showing the key
// above the list. There is no redirect: the key would have to be kept
// somewhere until the next request, and it is kept nowhere.
func (a *App) createKeyPage(w http.ResponseWriter, r *http.Request) {
	in, values, err := a.readKeyForm(r, nil)
	var k models.VirtualKey
	var secret string
	if err == nil {
		in.applyTo(&k)
		secret, err = a.store.CreateKey(r.Context(), &k)
	}
	if input, ok := formInputError(err, "key", in.Name); ok {
		form := views.KeyForm{Values: values, Errors: input.byField(), CSRFToken: sessionFrom(r.Context()).csrfToken()}
		a.rerenderForm(w, r, "Keys", "keys", views.KeyFormPartial(a.withKeyChoices(r, form)), func() (templ.Component, error) {
			vm, err := a.keysPage(r, form)
			return views.KeysContent(vm), err
		})
		return
	}
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	a.logger(r.Context()).Info("virtual key created", "key_id", k.ID, "name", k.Name)
	vm, err := a.keysPage(r, views.KeyForm{})
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	vm.NewKey = &views.NewKey{ID: k.ID, Name: k.Name, Key: secret}
	if err := a.reload(r.Context()); err != nil {
		// The key exists; losing its only showing would be worse than a stale table.
		vm.Warning = errReload.Error()
	}
	if isHTMX(r) {
		w.Header().Set("HX-Retarget", "#content")
		w.Header().Set("HX-Reswap", "innerHTML show:top")
	}
	a.renderPage(w, r, http.StatusCreated, "Keys", "keys", views.KeysContent(vm))
}

// withKeyChoices fills the form's selects; a failure leaves them empty, and
// the form still shows its errors.
func (a *App) withKeyChoices(r *http.Request, form views.KeyForm) views.KeyForm {
	owners, err := a.ownerNames(r)
	if err != nil {
		a.logger(r.Context()).Error("list owners for the key form", "err", err)
	}
	keyFormChoices(&form, owners)
	return form
}

// revokeKeyPage revokes a key (revoked=true, the default) or restores it.
func (a *App) revokeKeyPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "key")
	if err != nil {
		a.pageError(w, r, err)
		return
	}
	revoke := formValue(r, "revoked") != "false"
	_, err = a.store.UpdateKey(r.Context(), id, func(k *models.VirtualKey) error {
		switch {
		case !revoke:
			k.RevokedAt = nil
		case k.RevokedAt == nil:
			now := time.Now().UTC()
			k.RevokedAt = &now
		}
		return nil
	})
	a.finishWrite(w, r, err, "/keys")
}

// deleteKeyPage deletes a key.
func (a *App) deleteKeyPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "key")
	if err == nil {
		err = a.store.DeleteKey(r.Context(), id)
	}
	a.finishWrite(w, r, err, "/keys")
}
