package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"gateway/models"
)

// checkPoolAPI handles POST /api/pools/{public_name}/check: a live check of
// every enabled member, answered like GET /api/pools/{public_name}/status.
func (a *App) checkPoolAPI(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("public_name")
	if _, err := a.checkPool(r, name); err != nil {
		a.apiError(w, r, err)
		return
	}
	st, err := a.poolStatus(r, name)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, st.json())
}

// checkSummary counts the outcome of one Check now.
type checkSummary struct {
	at                  time.Time
	ok, failed, skipped int
}

func (s checkSummary) String() string {
	if s.ok+s.failed == 0 {
		why := "no member is enabled"
		if s.skipped > 0 {
			why = "every enabled member's upstream model is a wildcard pattern"
		}
		return fmt.Sprintf("Checked nothing at %s: %s.", s.at.Format("15:04:05 UTC"), why)
	}
	out := fmt.Sprintf("Checked %s at %s: %d ok, %d failed.", membersText(s.ok+s.failed), s.at.Format("15:04:05 UTC"), s.ok, s.failed)
	if s.skipped > 0 {
		out += fmt.Sprintf(" %d not checkable (wildcard pattern).", s.skipped)
	}
	return out
}

func membersText(n int) string {
	if n == 1 {
		return "1 member"
	}
	return fmt.Sprintf("%d members", n)
}

// checkPool calls every enabled member of the pool named name at once and
// stores each result as the member's last check. A member that could not be
// called (a wildcard pattern) keeps its previous result.
func (a *App) checkPool(r *http.Request, name string) (checkSummary, error) {
	if err := a.validateVar("public_name", name, "required,max=500,publicname"); err != nil {
		return checkSummary{}, err
	}
	rt, err := a.runtimeState()
	if err != nil {
		return checkSummary{}, err
	}
	if _, _, err := a.poolEntries(r, name); err != nil {
		return checkSummary{}, err
	}
	// The checks and their results outlive an admin who leaves the page:
	// each check has its own 30 s limit.
	return a.checkAndStore(context.WithoutCancel(r.Context()), rt, name)
}

// checkAndStore checks the pool's members and stores the results.
func (a *App) checkAndStore(ctx context.Context, rt Runtime, name string) (checkSummary, error) {
	results, _ := rt.CheckPool(ctx, name)
	if err := ctx.Err(); err != nil {
		// Stopped (the gateway shuts down): the members did not fail.
		return checkSummary{}, err
	}
	sum := checkSummary{at: time.Now().UTC()}
	for _, res := range results {
		if res.Skipped {
			sum.skipped++
			continue
		}
		h := models.HealthCheck{DeploymentID: res.DeploymentID, CheckedAt: sum.at, OK: res.OK,
			LatencyMS: res.Latency.Milliseconds(), Error: res.Err}
		if err := a.store.SaveHealthCheck(ctx, &h); err != nil {
			return sum, err
		}
		if res.OK {
			sum.ok++
		} else {
			sum.failed++
		}
	}
	a.logger(ctx).Info("pool checked", "public_name", name, "ok", sum.ok, "failed", sum.failed, "skipped", sum.skipped)
	return sum, nil
}
