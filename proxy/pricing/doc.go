// Package pricing turns an answer's usage into what its provider bills for
// it, exactly: the price of each token class (input, cache reads, 5-minute
// and 1-hour cache writes, output), taken from the model entry where it
// sets one and from the price catalog where it does not; the long-context
// tier; cost in femto-dollars, written as an exact decimal. What each
// vendor's counts include is read into one meaning by translate (see
// translate.Usage), so that the bill is the same whatever the caller's
// protocol and whether the answer was translated or streamed.
//
// The catalog is the vendors' list prices shipped in the binary
// (catalog.json, dated), over which an admin may import a newer one in
// the model_prices_and_context_window.json format (ImportLiteLLM).
package pricing
