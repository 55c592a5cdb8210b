package providers

import "net/http"

// Authorizer puts a provider's credentials on a call. Today's types send a
// static header; a type that signs each request or fetches tokens brings its
// own.
type Authorizer interface {
	// Authorize sets the credential headers (and the headers the type
	// always requires) in h.
	Authorize(h http.Header)
	// Secret is what must never appear in shown or stored text.
	Secret() string
}

// headerAuth sends the key in one header. Values are built once: the proxy
// sets them on every request.
type headerAuth struct {
	name   string
	value  []string
	fixed  http.Header
	secret string
}

func newHeaderAuth(name, value, secret string, fixed map[string]string) *headerAuth {
	a := &headerAuth{name: http.CanonicalHeaderKey(name), value: []string{value}, secret: secret, fixed: http.Header{}}
	for k, v := range fixed {
		a.fixed[http.CanonicalHeaderKey(k)] = []string{v}
	}
	return a
}

// Authorize shares its value slices with every request: nothing appends to
// a request's own headers in place (Header.Set replaces the slice).
func (a *headerAuth) Authorize(h http.Header) {
	h[a.name] = a.value
	for k, v := range a.fixed {
		h[k] = v
	}
}

func (a *headerAuth) Secret() string { return a.secret }
