package upstreamerr

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Google's APIs (Gemini, Vertex AI) answer errors as
// {"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED","details":[…]}}:
// status is one of gRPC's canonical codes, and details may hold an ErrorInfo
// (its reason names an invalid key) and a RetryInfo (its retryDelay is the
// retry hint, sent in no header).

// isGoogleStatus reports whether s is one of the canonical codes Google's
// errors carry as status; a body whose status is anything else is not read
// as Google's.
func isGoogleStatus(s string) bool {
	switch s {
	case "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
		"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
		"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED":
		return true
	}
	return false
}

// readGoogleDetails reads an error's details: the reason of its ErrorInfo
// and the retryDelay of its RetryInfo ("30s", "1.5s"). Details it cannot
// read give nothing.
func readGoogleDetails(raw json.RawMessage) (reason string, retry time.Duration) {
	var details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
	}
	if json.Unmarshal(raw, &details) != nil {
		return "", 0
	}
	for _, d := range details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && reason == "":
			reason = d.Reason
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				retry = v
			}
		}
	}
	return reason, retry
}

// saysAuth: the provider refused the gateway's credentials in a status
// other than 401 or 403 (Gemini answers an invalid API key with a 400), or
// in a stream's error event, which has no status.
func saysAuth(e Error) bool {
	switch {
	case e.Type == "UNAUTHENTICATED", e.Type == "PERMISSION_DENIED":
		return true
	case e.reason == "API_KEY_INVALID":
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "api key not valid") || strings.Contains(msg, "api key expired")
}

// firstElement gives the first element of a body that is a JSON array
// (Vertex AI answers an error in a stream request as [{"error":…}]), and
// any other body as it is.
func firstElement(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return body
	}
	var list []json.RawMessage
	if json.Unmarshal(trimmed, &list) != nil || len(list) == 0 {
		return body
	}
	return list[0]
}
