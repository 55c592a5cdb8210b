package handlers

import (
	"time"

	"gateway/models"
)

// budgetInput is the budget a key, a user or a team takes in the API and
// in its page's form.
type budgetInput struct {
	MaxBudgetUSD   *float64 `json:"max_budget_usd" validate:"omitnil,gte=0"`
	SoftBudgetUSD  *float64 `json:"soft_budget_usd" validate:"omitnil,gte=0"`
	BudgetDuration string   `json:"budget_duration" validate:"omitempty,budgetduration"`
}

func budgetInputOf(b models.Budget) budgetInput {
	return budgetInput{MaxBudgetUSD: b.MaxBudgetUSD, SoftBudgetUSD: b.SoftBudgetUSD, BudgetDuration: b.BudgetDuration}
}

func (in budgetInput) applyTo(b *models.Budget) {
	b.MaxBudgetUSD, b.SoftBudgetUSD, b.BudgetDuration = in.MaxBudgetUSD, in.SoftBudgetUSD, in.BudgetDuration
}

// limitsInput is the rate limits a key or a team takes.
type limitsInput struct {
	RPMLimit *int `json:"rpm_limit" validate:"omitnil,gte=0"`
	TPMLimit *int `json:"tpm_limit" validate:"omitnil,gte=0"`
}

func limitsInputOf(l models.RateLimits) limitsInput {
	return limitsInput{RPMLimit: l.RPMLimit, TPMLimit: l.TPMLimit}
}

func (in limitsInput) applyTo(l *models.RateLimits) {
	l.RPMLimit, l.TPMLimit = in.RPMLimit, in.TPMLimit
}

// budgetJSON is a holder's budget in API answers.
type budgetJSON struct {
	MaxBudgetUSD   *float64   `json:"max_budget_usd"`
	SoftBudgetUSD  *float64   `json:"soft_budget_usd"`
	BudgetDuration string     `json:"budget_duration"`
	BudgetResetAt  *time.Time `json:"budget_reset_at"`
	SpendUSD       usdJSON    `json:"spend_usd"`
}

func budgetJSONOf(b models.Budget) budgetJSON {
	return budgetJSON{MaxBudgetUSD: b.MaxBudgetUSD, SoftBudgetUSD: b.SoftBudgetUSD, BudgetDuration: b.BudgetDuration,
		BudgetResetAt: b.BudgetResetAt, SpendUSD: usdJSON(b.SpendUSD)}
}

// limitsJSON is a holder's rate limits in API answers.
type limitsJSON struct {
	RPMLimit *int `json:"rpm_limit"`
	TPMLimit *int `json:"tpm_limit"`
}

func limitsJSONOf(l models.RateLimits) limitsJSON {
	return limitsJSON{RPMLimit: l.RPMLimit, TPMLimit: l.TPMLimit}
}
