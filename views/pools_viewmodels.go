package views

// View models of the Models page (pools, inline edits, fallbacks) and of the
// pool status page. Every value is already formatted for display.

// ModelsView is the Models page: every public name as a group, and the form
// that adds an entry.
type ModelsView struct {
	Groups []PoolGroup
	// ProviderHint is a curl command that adds a provider, shown while there is none.
	ProviderHint string
	Form         ModelEntryForm
}

// PoolGroup is every model entry sharing one public name, with its shares,
// fallbacks and warnings. It is also the partial that inline edits swap.
type PoolGroup struct {
	PublicName string
	// DefaultsOnly: this is not a pool but the default fallbacks of every
	// pool (public name "*"), shown while no entry has that name.
	DefaultsOnly bool
	// StatusURL is the pool status page, the name path-escaped.
	StatusURL string
	Wildcard  bool
	CSRFToken string
	Members   []PoolEntry
	// SharesKnown is false when the admin listener runs without a proxy: the
	// planned shares are then not shown.
	SharesKnown bool
	// ZeroWeightTrap: two or more enabled members, every weight 0 or unset
	// and at least one explicitly 0, which picks uniformly, not "parked".
	ZeroWeightTrap bool
	// PrefixNote is set when the name looks like "prefix/model" and no
	// wildcard route covers the prefix: it names the prefix ("openai/").
	PrefixNote string
	// NotServed: no member is enabled, so callers get "no healthy deployments".
	NotServed bool
	Fallbacks []FallbackList
	// AddURL opens the add form with this pool's public name filled in.
	AddURL   string
	Settings PoolSettingsForm
	// Strategy is the pool's routing strategy when it is not the default,
	// StrategyHelp what it picks by.
	Strategy     string
	StrategyHelp string
}

// PoolSettingsForm is a pool's settings on its card: the values as stored
// ("" is the gateway's default) or as typed when the form comes back with
// Errors (by field name).
type PoolSettingsForm struct {
	StickyTTLSeconds string
	NumRetries       string
	AllowedFails     string
	// RoutingStrategy is "" for the default, simple-shuffle.
	RoutingStrategy string
	Strategies      []Option
	Errors          map[string]string
}

// PoolEntry is one row of a group: the entry, its planned share and the
// state of its inline weight form.
type PoolEntry struct {
	ModelEntry
	// PlannedShare is what its weight buys with every member healthy, "12.5 %".
	PlannedShare string
	// ShareFraction is the same as a fraction 0..1, for the bar.
	ShareFraction float64
	// WeightInput is the weight form's value: the weight, "" when unset, or
	// what was typed when the form comes back with WeightError.
	WeightInput string
	WeightError string
	// ToggleError says why enabling or disabling failed.
	ToggleError string
	// Edit, when set, shows the row as its edit form.
	Edit *ModelEntryForm
}

// FallbackList is one ordered fallback list of a public name, with its edit form.
type FallbackList struct {
	// Kind is general, context_window or content_policy; Label says it in words.
	Kind    string
	Label   string
	Help    string
	Targets []FallbackTarget
	// Input is the form's value: the targets joined with ", ", or what was
	// typed when the form comes back with Error.
	Input string
	Error string
}

// FallbackTarget is one target of a list; Unknown when no pool or wildcard
// route serves that name (yet).
type FallbackTarget struct {
	Name    string
	Unknown bool
}

// PoolStatusPage is the pool status page: every member as configured and as
// served now, and the Check now button.
type PoolStatusPage struct {
	PublicName string
	Wildcard   bool
	// URL is the page's own path, the name path-escaped.
	URL       string
	CheckURL  string
	CSRFToken string
	// NotServed: no member is enabled.
	NotServed bool
	// Strategy is the routing strategy the pool is served by, StrategyHelp
	// what it picks by; Decides names the column it decides on ("weight",
	// "latency", "in-flight", "minute", "price").
	Strategy     string
	StrategyHelp string
	Decides      string
	// Tiered: the members are in more than one tier.
	Tiered  bool
	Members []PoolStatusMember
	// Checked is set on the answer to Check now: when it ran and how many
	// members it called.
	Checked string
	// BackgroundChecks says whether and how often pools are checked on a timer.
	BackgroundChecks string
	// Cooldowns says whose view of the cooldowns the page shows: this
	// process's, or every replica's through Redis.
	Cooldowns string
	// Pin is the pool's sticky binding, nil when there is none.
	Pin *PoolPin
}

// PoolPin is a pool's sticky binding as its status page shows it.
type PoolPin struct {
	Member   string // "provider · upstream model"
	Until    string // UTC
	UntilISO string // RFC 3339, for <time datetime>
	Left     string // "1h 59m"
	Manual   bool   // an admin's pin, not a binding made by a success
	// NotInEffect says why the binding routes nothing now ("the member is
	// cooling down"), "" when it does.
	NotInEffect string
}

// PoolStatusMember is one member on the pool status page.
type PoolStatusMember struct {
	ID            int64
	Provider      string
	UpstreamModel string
	Enabled       bool
	Weight        string
	WeightUnset   bool
	// Reserve: the weight is explicitly 0, so the member is picked only
	// while every member with a weight above 0 is out.
	Reserve      bool
	PlannedShare string
	PlannedFrac  float64
	Share        string
	ShareFrac    float64
	// OutBecause says why a member that planned traffic gets none now:
	// "cooling down", "last check failed".
	OutBecause  string
	CoolingDown bool
	// CooldownUntil is a UTC time, CooldownLeft how long from now ("3d 14h").
	CooldownUntil    string
	CooldownUntilISO string
	CooldownLeft     string
	CooldownReason   string
	// EndCooldownURL is where the End cooldown button posts.
	EndCooldownURL string
	CSRFToken      string
	// Check is the last live check, nil when there was none.
	Check *MemberCheck
	// Uncheckable says why Check now skips the member (a wildcard pattern).
	Uncheckable string
	// Tier is the member's priority, lower first.
	Tier string
	// Requests and Tokens are this minute's usage against the limits:
	// "42/60 req", "1.2k tok" without a limit of its own; both "" for a
	// member without limits, whose usage is not counted.
	Requests string
	Tokens   string
	AtLimit  bool
	InFlight string
	// Latency is the moving average, "" without a recent sample.
	Latency string
	// Price is input + output, USD per million tokens.
	Price string
}

// MemberCheck is a member's last live check.
type MemberCheck struct {
	At      string // UTC
	AtISO   string // RFC 3339, for <time datetime>
	Ago     string // "5 s ago"
	OK      bool
	Latency string
	Error   string
}
