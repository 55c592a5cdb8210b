package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"gateway/models"
	"gateway/views"
)

// This file holds what the pages' forms share: finishing a write, and
// reading typed fields.

// finishWrite ends a page write that has no form to re-render: the error
// page, or a reload and a redirect to back.
func (a *App) finishWrite(w http.ResponseWriter, r *http.Request, err error, back string) {
	if a.reloaded(w, r, err) {
		seeOther(w, r, back)
	}
}

// reloaded reloads the routing table after a write that returned err, and
// reports whether it did; if not, it has answered with the error page.
func (a *App) reloaded(w http.ResponseWriter, r *http.Request, err error) bool {
	if err == nil {
		err = a.reload(r.Context())
	}
	if err != nil {
		a.pageError(w, r, err)
		return false
	}
	return true
}

// formInputError is err as errors a form shows in place, and whether it is
// one: bad input, the store's ErrInvalid (its message names the field) and a
// taken name.
func formInputError(err error, what, name string) (*inputError, bool) {
	var input *inputError
	switch {
	case errors.As(err, &input):
		return input, true
	case errors.Is(err, models.ErrConflict):
		return badInput("name", "a %s named %q already exists", what, name), true
	}
	return storeInputError(err)
}

// joinInputErrors puts the parse errors first: "must be a number" says more
// than "is required" about the same field.
func joinInputErrors(parse *inputError, err error) error {
	if parse == nil {
		return err
	}
	var input *inputError
	if errors.As(err, &input) {
		return &inputError{fields: append(append([]fieldError{}, parse.fields...), input.fields...)}
	}
	if err != nil {
		return err
	}
	return parse
}

// formValue is a trimmed form field.
func formValue(r *http.Request, name string) string {
	return strings.TrimSpace(r.PostFormValue(name))
}

// formBool reads a checkbox.
func formBool(r *http.Request, name string) bool {
	switch formValue(r, name) {
	case "true", "on", "1", "yes":
		return true
	}
	return false
}

// formParser collects the errors of form fields that must be numbers.
type formParser struct {
	err *inputError
}

func (p *formParser) fail(field, msg string) {
	if p.err == nil {
		p.err = &inputError{}
	}
	p.err.fields = append(p.err.fields, fieldError{Field: field, Message: msg})
}

func (p *formParser) float(field, s string) *float64 {
	if s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.fail(field, "must be a number")
		return nil
	}
	return &f
}

func (p *formParser) int(field, s string) *int {
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		p.fail(field, "must be a whole number")
		return nil
	}
	return &n
}

// id reads a select's id: blank is none.
func (p *formParser) id(field, s string) *int64 {
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		p.fail(field, "must be chosen from the list")
		return nil
	}
	return &n
}

// time reads a datetime-local field (or a date) as UTC.
func (p *formParser) time(field, s string) *time.Time {
	if s == "" {
		return nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			t = t.UTC()
			return &t
		}
	}
	p.fail(field, "must be a date and time such as 2026-12-31T18:00")
	return nil
}

// budget reads a budget's fields of a key's, a user's or a team's form.
func (p *formParser) budget(max, soft, period string) budgetInput {
	return budgetInput{MaxBudgetUSD: p.float("max_budget_usd", max), SoftBudgetUSD: p.float("soft_budget_usd", soft),
		BudgetDuration: period}
}

// limits reads the rate limits of a key's or a team's form.
func (p *formParser) limits(rpm, tpm string) limitsInput {
	return limitsInput{RPMLimit: p.int("rpm_limit", rpm), TPMLimit: p.int("tpm_limit", tpm)}
}

// budgetPeriods are the reset periods the forms offer; current, when it is
// another valid period (set through the API), is kept as a choice.
func budgetPeriods(current string) []views.Option {
	opts := []views.Option{
		{Value: "30m", Label: "30 minutes"},
		{Value: "1d", Label: "day"},
		{Value: "7d", Label: "week"},
		{Value: "1mo", Label: "month"},
	}
	for _, o := range opts {
		if o.Value == current {
			return opts
		}
	}
	if current != "" {
		opts = append(opts, views.Option{Value: current, Label: current})
	}
	return opts
}

// formatOptional shows an optional number; blank when unset.
func formatOptional[T int | int64 | float64](p *T) string {
	if p == nil {
		return ""
	}
	return formatNumber(float64(*p))
}

// optionalInt shows an optional whole number; blank when unset.
func optionalInt(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func idOption(id int64, label string) views.Option {
	return views.Option{Value: strconv.FormatInt(id, 10), Label: label}
}

func formatID(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// pageNotFound words a missing row for a page.
func pageNotFound(what string, id int64) error {
	return &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("There is no %s with id %d.", what, id)}
}

// inPlace: an htmx request from a list's in-place edit, which targets the
// list by its id ("teams") and wants the list back, not a redirect.
func inPlace(r *http.Request, listID string) bool {
	return isHTMX(r) && r.Header.Get("HX-Target") == listID
}
