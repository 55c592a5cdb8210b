// Package views holds the admin web app's templ components. Components take
// the view models below, never ORM structs: the handlers translate, so that
// nothing a page must not show (a provider's key) can reach a template.
package views

// Page is what the layout needs from the current request.
type Page struct {
	Title string
	// Active names the nav item to highlight: "dashboard", "models", …
	Active string
	// Username is the signed-in admin; empty on the login page, which has no nav.
	Username string
	// Role is the signed-in admin's role: owner, admin or viewer.
	Role      string
	CSRFToken string
	// AssetVersion busts caches of /static/ files when they change.
	AssetVersion string
}

// LoginForm is the sign-in form.
type LoginForm struct {
	CSRFToken string
	Username  string
	Error     string
	Next      string // the page asked for while signed out, shown after sign-in
	SSO       bool   // offer "Sign in with SSO"
}

// Dashboard holds the counts shown on the dashboard.
type Dashboard struct {
	Providers    int
	ModelEntries int
	Pools        int
	Keys         int
	// Attention lists what an admin should look at now; empty when all is
	// well.
	Attention []AttentionItem
}

// AttentionItem is one thing on the dashboard's "needs attention" panel.
type AttentionItem struct {
	Kind    string // "cooldown", "check", "budget", "logs": for tests and styling
	Text    string
	Link    string // where to act on it, "" when nowhere
	Until   string // RFC 3339 when the item ends by itself (a cooldown), for <time data-relative>
	UntilIn string // "3d 14h"
}

// ModelEntry is one row of a pool, already formatted for display.
type ModelEntry struct {
	ID            int64
	Provider      string
	UpstreamModel string
	// Weight is "unset" when the entry has none (which is not 0).
	Weight      string
	WeightUnset bool
	Cooldown    string
	// InputPrice and OutputPrice are the effective prices, USD per million
	// tokens ("" when unknown: Unpriced); PriceNote says what every class
	// costs and where each price comes from.
	InputPrice  string
	OutputPrice string
	PriceNote   string
	Unpriced    bool
	Enabled     bool
	// Reserve: the weight is explicitly 0, so the member is picked only
	// while every weighted member is out.
	Reserve bool
	// Cooling is the member's live cooldown, nil when it is not cooling.
	Cooling *Cooling
	// Tier is its priority ("tier 1"), "" in a pool of tier 0 alone; Limits
	// its rate limits ("60 rpm · 100k tpm"), "" when it has none.
	Tier   string
	Limits string
}

// Cooling is a member's live cooldown, as the proxy holds it now.
type Cooling struct {
	// Until is a UTC time for display, UntilISO the same in RFC 3339.
	Until    string
	UntilISO string
	// Left is how long from now ("3d 14h"), "" when already past.
	Left   string
	Reason string
}

// Option is one choice of a select.
type Option struct {
	Value string
	Label string
}

// ModelEntryForm is the add-entry form: what was typed and what is wrong with it.
type ModelEntryForm struct {
	// IDPrefix keeps element ids unique when several forms are on the page
	// (the add form has none, an entry's edit form "edit-<id>-").
	IDPrefix  string
	CSRFToken string
	Providers []Option
	Values    ModelEntryValues
	// Errors maps a field name (public_name, weight, …) to its message.
	Errors map[string]string
}

// ModelEntryValues are the form's fields as typed.
type ModelEntryValues struct {
	PublicName      string
	ProviderID      string
	UpstreamModel   string
	Weight          string
	CooldownSeconds string
	TimeoutSeconds  string
	ContextWindow   string
	// Prices are the price fields by form name (input_price, …,
	// long_context_threshold); BaseModel the catalog's model to price as.
	Prices    map[string]string
	BaseModel string
	RPMLimit  string
	TPMLimit  string
	Priority  string
	// Enabled is the edit form's checkbox; the add form always enables.
	Enabled bool
}

// Message is a simple page with a heading and a line of text.
type Message struct {
	Heading string
	Text    string
	TestID  string
}
