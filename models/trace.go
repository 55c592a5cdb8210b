package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// Bounds of a stored trace: a request routed through five fallback pools
// with their retries could make dozens of attempts, and an upstream's error
// text has no limit of its own.
const (
	MaxTraceAttempts = 16
	MaxTraceText     = 200
)

// Attempt is one call of a request to one member, as its trace keeps it.
type Attempt struct {
	DeploymentID  int64  `json:"deployment_id"`
	Provider      string `json:"provider"`
	UpstreamModel string `json:"upstream_model"`
	// Status is the upstream's answer, or the gateway's status for a call
	// that got none (504 timeout, 502 unreachable, 499 caller gone).
	Status int `json:"status"`
	// StartMS is when the attempt began, after the request came in: the
	// gaps between attempts are the router's backoffs.
	StartMS   int64 `json:"start_ms"`
	LatencyMS int64 `json:"latency_ms"`
	// Reason is why the router moved on ("429, cooling down until …",
	// "timeout", "5xx", "untranslatable"); "" for the attempt that served.
	Reason string `json:"reason"`
	// Error is the failure's message, at most MaxTraceText bytes.
	Error string `json:"error"`
	// Fallback is the pool being routed when it was not the one asked for.
	Fallback string `json:"fallback"`
}

// Trace is a request's attempts in order, stored as a JSON array in a text
// column. A request served at its first attempt stores none: its row says
// all there is (see RequestLog.AttemptTrace).
type Trace []Attempt

// Value implements driver.Valuer; an empty trace is the column's default.
func (t Trace) Value() (driver.Value, error) {
	if len(t) == 0 {
		return "", nil
	}
	b, err := json.Marshal([]Attempt(t))
	return string(b), err
}

// Scan implements sql.Scanner.
func (t *Trace) Scan(src any) error {
	b, err := columnBytes(src, "Trace")
	if err != nil {
		return err
	}
	if len(b) == 0 {
		*t = nil
		return nil
	}
	if err := json.Unmarshal(b, (*[]Attempt)(t)); err != nil {
		return fmt.Errorf("models: scan Trace: %w", err)
	}
	return nil
}

// AttemptTrace is the row's attempts: its stored trace, or, for a request
// served at its first attempt (which stores none), that attempt as the row
// tells it, its latency the request's.
func (l *RequestLog) AttemptTrace() Trace {
	if len(l.Trace) > 0 || l.Attempts != 1 || l.DeploymentID == nil {
		return l.Trace
	}
	return Trace{{DeploymentID: *l.DeploymentID, Provider: l.ProviderName, UpstreamModel: l.UpstreamModel,
		Status: l.Status, LatencyMS: l.LatencyMS, Error: l.Error, Fallback: l.Fallback}}
}
