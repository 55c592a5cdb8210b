package providers

import (
	"net/http"
)

// Authorizer puts a provider's credentials on a call: a static header, a
// signature of the request (bedrock), or a token fetched and cached
// (vertex).
type Authorizer interface {
	// Authorize sets the credential headers (and the headers the type
	// always requires) on req, whose body is body.
	Authorize(req *http.Request, body []byte) error
}

// headerAuth sends the key in one header. Values are built once: the proxy
// sets them on every request.
type headerAuth struct {
	name  string
	value []string
	fixed http.Header
}

func newHeaderAuth(name, value string, fixed map[string]string) *headerAuth {
	a := &headerAuth{name: http.CanonicalHeaderKey(name), value: []string{value}, fixed: http.Header{}}
	for k, v := range fixed {
		a.fixed[http.CanonicalHeaderKey(k)] = []string{v}
	}
	return a
}

// Authorize shares its value slices with every request: nothing appends to
// a request's own headers in place (Header.Set replaces the slice).
func (a *headerAuth) Authorize(req *http.Request, _ []byte) error {
	h := req.Header
	h[a.name] = a.value
	for k, v := range a.fixed {
		h[k] = v
	}
	return nil
}
