package views

// View models of the Providers, Keys, Teams, Users, Logs, Sticky and
// Dashboard pages. Every value is already formatted for display; none holds a
// secret except NewKey, shown once right after it was made.

// Spend is what an owner (key, user, team) spent against its budget.
type Spend struct {
	SpendUSD string // "$1.23"
	// BudgetUSD is "" without a budget.
	BudgetUSD string
	// Fraction of the budget spent, 0..1 (capped); 0 without a budget.
	Fraction float64
	Over     bool
	// Period is the budget's reset period ("1d"), "" when it never resets.
	Period string
}

// ProvidersPage lists the providers and holds the add form.
type ProvidersPage struct {
	Providers []ProviderRow
	Form      ProviderForm
	// DeleteError says why the provider DeleteErrorID could not be deleted,
	// shown on its row.
	DeleteError   string
	DeleteErrorID int64
	// Check is a test-connection result on a page rendered without htmx.
	Check *ProviderCheck
}

// ProviderRow is one provider in the list. Of its secrets it shows "…" and
// the last four characters, never more.
type ProviderRow struct {
	ID      int64
	Name    string
	APIType string
	// BaseURL is the stored one, or the type's default (BaseURLDefault).
	BaseURL        string
	BaseURLDefault bool
	// Facts are the type's settings worth seeing in the list (region,
	// project, location, api version, the deployments' URL).
	Facts []ProviderFact
	// Secrets are the type's stored secrets, each Value a hint ("…abcd", ""
	// when too short to show any of it). Labelled only when the type has
	// more than one (LabelSecrets).
	Secrets           []ProviderFact
	LabelSecrets      bool
	SupportsResponses bool
	// Entries is how many model entries use the provider.
	Entries int
}

// ProviderFact is one setting of a provider as the list shows it.
type ProviderFact struct {
	Name  string // the field's API name, for data-testid
	Label string
	Value string
	// Default: Value is what an empty setting means.
	Default bool
}

// ProviderForm adds (ID 0) or edits a provider. It shows the fields of the
// chosen type and never carries a secret: a form re-rendered with errors
// asks for the secrets typed again.
type ProviderForm struct {
	CSRFToken string
	ID        int64
	Values    ProviderValues
	// Fields are the chosen type's fields, in the type's order; none before
	// a type is chosen.
	Fields []ProviderField
	// BaseURLRequired: the type has no default base URL; BaseURLPlaceholder
	// shows a typical one, or the default.
	BaseURLRequired    bool
	BaseURLPlaceholder string
	// SecretsAgain names the secrets that were typed into a form that comes
	// back with errors (a secret never goes back to the browser): the admin
	// is asked to enter them again.
	SecretsAgain []string
	Errors       map[string]string
}

// ProviderValues are the provider form's common fields as typed.
type ProviderValues struct {
	Name              string
	APIType           string
	BaseURL           string
	SupportsResponses bool
}

// ProviderField is one field of the chosen type in the provider form.
type ProviderField struct {
	Name, Label string
	// Value is what was typed or stored; always "" for a secret.
	Value       string
	Placeholder string
	Secret      bool
	Required    bool
	// Stored: the secret is stored and an empty input keeps it; StoredHint
	// is "…" and its last four characters ("" when too short to show).
	Stored     bool
	StoredHint string
	// KeyFile offers a file input for the secret (a service account key).
	KeyFile bool
}

// ProviderCheck is the result of a test connection.
type ProviderCheck struct {
	ProviderID int64
	OK         bool
	// Status is the upstream's HTTP status, 0 when it did not answer.
	Status    int
	LatencyMS int64
	// URL is what was called.
	URL string
	// Message says what went wrong, with anything like a key masked.
	Message string
}

// KeysPage lists the virtual keys and holds the create form.
type KeysPage struct {
	Keys []KeyRow
	Form KeyForm
	// Edit, when set, shows the row of key Edit.ID as its edit form.
	Edit *KeyForm
	// NewKey is set only on the answer to the create form: the one time the
	// key exists in clear.
	NewKey *NewKey
	// Warning says the key was made but is not live yet.
	Warning string
}

// NewKey is a key just created.
type NewKey struct {
	ID   int64
	Name string
	Key  string
}

// KeyRow is one virtual key in the list.
type KeyRow struct {
	ID      int64
	Name    string
	Hint    string
	Models  string // "all" when the key may use every model
	Spend   Spend
	RPM     string
	TPM     string
	User    string
	Team    string
	Expires string
	// Status is "active", "revoked" or "expired".
	Status  string
	Revoked bool
	Created string
}

// KeyForm creates a virtual key.
type KeyForm struct {
	// ID is the key an edit form saves; 0 is the create form.
	ID        int64
	CSRFToken string
	Users     []Option
	Teams     []Option
	Periods   []Option
	Values    KeyValues
	Errors    map[string]string
}

// KeyValues are the key form's fields as typed.
type KeyValues struct {
	Name           string
	Models         string
	MaxBudgetUSD   string
	SoftBudgetUSD  string
	BudgetDuration string
	RPMLimit       string
	TPMLimit       string
	UserID         string
	TeamID         string
	ExpiresAt      string
}

// TeamsPage lists the teams and holds the add form.
type TeamsPage struct {
	Teams []TeamRow
	Form  TeamForm
	// Edit, when set, shows the row of team Edit.ID as its edit form.
	Edit *TeamForm
}

// TeamRow is one team in the list.
type TeamRow struct {
	ID    int64
	Name  string
	Spend Spend
	RPM   string
	TPM   string
	Users int
	Keys  int
}

// TeamForm adds (ID 0) or edits a team.
type TeamForm struct {
	CSRFToken string
	ID        int64
	Periods   []Option
	Values    TeamValues
	Errors    map[string]string
}

// TeamValues are the team form's fields as typed.
type TeamValues struct {
	Name           string
	MaxBudgetUSD   string
	SoftBudgetUSD  string
	BudgetDuration string
	RPMLimit       string
	TPMLimit       string
}

// UsersPage lists the users and holds the add form.
type UsersPage struct {
	Users []UserRow
	Form  UserForm
	// Edit, when set, shows the row of user Edit.ID as its edit form.
	Edit *UserForm
}

// UserRow is one user in the list.
type UserRow struct {
	ID    int64
	Name  string
	Email string
	Team  string
	Spend Spend
	Keys  int
}

// UserForm adds (ID 0) or edits a user.
type UserForm struct {
	CSRFToken string
	ID        int64
	Teams     []Option
	Periods   []Option
	Values    UserValues
	Errors    map[string]string
}

// UserValues are the user form's fields as typed.
type UserValues struct {
	Name           string
	Email          string
	TeamID         string
	MaxBudgetUSD   string
	SoftBudgetUSD  string
	BudgetDuration string
}

// LogsPage is one page of request logs, newest first.
type LogsPage struct {
	Filter LogFilterForm
	Rows   []LogRow
	// OlderURL is the next page, "" on the last; NewestURL is the first page,
	// "" when this is it.
	OlderURL  string
	NewestURL string
}

// LogFilterForm filters the request logs.
type LogFilterForm struct {
	Values    LogFilterValues
	Errors    map[string]string
	Models    []string
	Providers []string
	Keys      []Option
}

// LogFilterValues are the filters as typed.
type LogFilterValues struct {
	Model     string
	Provider  string
	KeyID     string
	Status    string
	RequestID string
	// From and To are times in UTC, as a datetime-local field gives them
	// (2026-12-02T11:46) or in RFC 3339.
	From   string
	To     string
	Errors bool
}

// LogRow is one request log.
type LogRow struct {
	ID            int64
	Date          string
	Time          string
	Model         string
	Fallback      string
	Provider      string
	UpstreamModel string
	Key           string
	KeyHint       string
	Endpoint      string
	Stream        bool
	Status        int
	OK            bool
	Latency       string
	TokensIn      string
	TokensOut     string
	// Estimated: the stream was cut before its usage came, so the output
	// tokens (and the cost) are estimated from what reached the caller.
	Estimated bool
	Cost      string
	Attempts  int
	Error     string
	// URL is the row's detail view.
	URL string
}

// LogDetailPage is one request log with its attempts.
type LogDetailPage struct {
	Row       LogRow
	RequestID string
	TTFB      string
	// Cache is "read / written" tokens, "" when there were none.
	Cache string
	// CostParts explain the cost: each token class with its tokens and
	// what they cost; PriceSource says where the prices came from.
	CostParts   []CostPart
	PriceSource string
	Attempts    []AttemptRow
	// Untraced is how many attempts the trace does not show: a trace keeps
	// the first 16.
	Untraced int
}

// CostPart is one token class of a request's cost.
type CostPart struct {
	Class, Tokens, Cost string
}

// AttemptRow is one attempt of a request: which member, what it answered
// and why the router moved on.
type AttemptRow struct {
	N             int
	DeploymentID  int64
	Member        string // the entry's public name, or "deleted entry"
	Provider      string
	UpstreamModel string
	Status        int // 0: the member was never called
	OK            bool
	Start         string // after the request came in
	Latency       string
	Reason        string
	Error         string
	Fallback      string
}

// DashboardPage is the dashboard: the counts, usage over a time window with
// charts, and the proxy's live statistics.
type DashboardPage struct {
	Dashboard
	Window  string
	Windows []WindowChoice
	// Since and Until bound the window, in UTC.
	Since  string
	Until  string
	Totals UsageTotals
	Charts []Chart
	// Models and Deployments break the window's requests down.
	Models      []UsageRow
	Deployments []UsageRow
	// Live is the proxy's in-memory statistics since start; LiveAvailable is
	// false when the admin listener runs without a proxy.
	Live          []LiveStatsRow
	LiveAvailable bool
}

// WindowChoice is one selectable time window.
type WindowChoice struct {
	Value  string
	Label  string
	Active bool
}

// UsageTotals sums up a window.
type UsageTotals struct {
	Requests    string
	SuccessRate string
	AvgLatency  string
	Tokens      string
	Cost        string
}

// UsageRow is the usage of one model or deployment over the window.
type UsageRow struct {
	Name   string
	Detail string
	// RequestCount orders the rows; Requests shows it.
	RequestCount int64
	Requests     string
	SuccessRate  string
	AvgLatency   string
	TokensIn     string
	TokensOut    string
	Cost         string
}

// LiveStatsRow is one deployment's in-memory statistics.
type LiveStatsRow struct {
	ID          int64
	PublicName  string
	Provider    string
	Requests    string
	SuccessRate string
	AvgLatency  string
	P95Latency  string
	TokensIn    string
	TokensOut   string
	Cost        string
	LastError   string
	LastErrorAt string
}

// Chart is a small server-drawn SVG chart; every coordinate is computed by
// the handler, in the chart's viewBox units.
type Chart struct {
	Title  string
	TestID string
	// Width and Height are the viewBox; the plot area lies inside the margins.
	Width, Height                            float64
	PlotLeft, PlotTop, PlotRight, PlotBottom float64
	// Bars are drawn as rectangles; Line, when set, as one polyline through
	// Points (a line chart has no bars).
	Bars   []ChartBar
	Line   string
	Points []ChartPoint
	YTicks []ChartTick
	XTicks []ChartTick
	// Empty is set when every value is 0: the chart says EmptyText, or
	// "no requests" when that is unset.
	Empty     bool
	EmptyText string
	// Legend names the series, in their colours' order.
	Legend []ChartLegend
}

// ChartBar is one rectangle; Series picks its colour (0 blue, 1 red, 2 teal).
type ChartBar struct {
	X, Y, W, H float64
	Series     int
	Label      string
}

// ChartPoint is one point of a line, with its tooltip.
type ChartPoint struct {
	X, Y  float64
	Label string
}

// ChartTick is an axis label at a position (Y for the value axis, X for time).
type ChartTick struct {
	Pos   float64
	Label string
}

// ChartLegend is one series' name.
type ChartLegend struct {
	Label  string
	Series int
}

// StickyPage shows the sticky bindings and holds the pin form.
type StickyPage struct {
	// Available is false when the admin listener runs without a proxy.
	Available bool
	Bindings  []StickyRow
	Form      StickyForm
}

// StickyRow is one live binding.
type StickyRow struct {
	Model         string
	DeploymentID  int64
	Provider      string
	UpstreamModel string
	Manual        bool
	ExpiresIn     string
	ExpiresAt     string
	NotInEffect   string // why the binding routes nothing now, "" when it does
}

// StickyForm pins a member: a model name, then one member of its pool.
type StickyForm struct {
	CSRFToken string
	// Models are the exact public names, suggested for model_name.
	Models  []string
	Members []OptionGroup
	Values  StickyValues
	Errors  map[string]string
}

// StickyValues are the pin form's fields as typed.
type StickyValues struct {
	ModelName    string
	DeploymentID string
	TTL          string
}

// OptionGroup is an optgroup of a select.
type OptionGroup struct {
	Label   string
	Options []Option
}

// SettingsForm is the Settings page's form: the values stored or as typed,
// and what is wrong with them by field name.
type SettingsForm struct {
	CSRFToken string
	Values    SettingsValues
	Errors    map[string]string
	// Saved: the answer to a successful save.
	Saved bool
}

// SettingsValues are the settings as the form shows them.
type SettingsValues struct {
	LogRetentionDays           string
	HealthCheckIntervalMinutes string
	ResponsesRetentionDays     string
	// AllowUnpricedWithBudget lets callers under a budget use entries
	// without a price (their cost is then unknown and not counted).
	AllowUnpricedWithBudget bool
}
