package proxy

import (
	"net/http"
	"strconv"
)

// Header values that every request would otherwise build again: http.Header's
// Set allocates a one-element slice per call, and a response carries a dozen
// headers. These slices are built once (constants here, per member and
// provider at reload) and shared read-only by every request; a later Add
// appends to a full slice and so copies it, never writing into the shared one.

// headerValue is a header value built once.
func headerValue(v string) []string { return []string{v} }

// Values of constant headers; nothing may write into them.
var (
	valueJSON       = headerValue("application/json")
	valueNoCache    = headerValue("no-cache")
	valueNo         = headerValue("no")
	valueCostHeader = headerValue("X-Gateway-Cost-Usd")
	valueAttempts   = func() (v [8][]string) {
		for n := range v {
			v[n] = headerValue(strconv.Itoa(n))
		}
		return v
	}()
)

// memberHeaders are a member's x-gateway-* values.
type memberHeaders struct {
	deploymentID, upstreamModel, provider []string
}

func newMemberHeaders(id int64, upstreamModel, provider string) memberHeaders {
	return memberHeaders{deploymentID: headerValue(strconv.FormatInt(id, 10)),
		upstreamModel: headerValue(upstreamModel), provider: headerValue(provider)}
}

// setGatewayHeaders tells the caller who served: the body's model stays what
// the caller asked for, the headers name the deployment behind it.
func (x *exchange) setGatewayHeaders(h http.Header) {
	m := x.member
	h["X-Gateway-Deployment-Id"] = m.headers.deploymentID
	h["X-Gateway-Upstream-Model"] = m.headers.upstreamModel
	if x.row.UpstreamModel != m.upstreamModel { // a wildcard route's
		h["X-Gateway-Upstream-Model"] = headerValue(x.row.UpstreamModel)
	}
	h["X-Gateway-Provider"] = m.headers.provider
	h["X-Gateway-Attempts"] = attemptsValue(x.row.Attempts)
	if x.row.Fallback != "" {
		h.Set("X-Gateway-Fallback", x.row.Fallback)
	}
}

// jsonOr is the value of a Content-Type header: application/json unless
// contentType says otherwise.
func jsonOr(contentType string) []string {
	if contentType == "" || contentType == "application/json" {
		return valueJSON
	}
	return headerValue(contentType)
}

func attemptsValue(n int) []string {
	if n >= 0 && n < len(valueAttempts) {
		return valueAttempts[n]
	}
	return headerValue(strconv.Itoa(n))
}
