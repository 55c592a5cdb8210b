package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"
)

// API types of a provider: the vendor API it speaks (the providers package
// holds each one's rules).
const (
	APITypeOpenAI    = "openai"
	APITypeAnthropic = "anthropic"
	APITypeAzure     = "azure"   // Azure OpenAI: OpenAI chat on deployments, api-key header
	APITypeBedrock   = "bedrock" // AWS Bedrock Converse, SigV4
	APITypeGemini    = "gemini"  // Google's Gemini API, x-goog-api-key
	APITypeVertex    = "vertex"  // Gemini and Claude on Vertex AI, a service account's OAuth token
)

// Fallback kinds.
const (
	FallbackGeneral       = "general"
	FallbackContextWindow = "context_window"
	FallbackContentPolicy = "content_policy"
)

// Provider is an upstream account. Its api key is stored only encrypted.
type Provider struct {
	ID                int64  `gorm:"primaryKey"`
	Name              string `gorm:"size:200;not null;uniqueIndex"`
	APIType           string `gorm:"size:20;not null"`
	BaseURL           string `gorm:"size:2000;not null"`
	APIKeyCipher      []byte `gorm:"not null"`
	APIKeyLast4       string `gorm:"size:8;not null;default:''"`
	SupportsResponses bool   `gorm:"not null;default:false"`
	// Fields of some types only; "" for the others.
	APIVersion     string `gorm:"size:40;not null;default:''"`  // azure: the api-version query parameter
	Region         string `gorm:"size:40;not null;default:''"`  // bedrock: the AWS region
	AWSAccessKeyID string `gorm:"size:128;not null;default:''"` // bedrock: the access key's id (not secret)
	Project        string `gorm:"size:200;not null;default:''"` // vertex: the Google Cloud project
	Location       string `gorm:"size:60;not null;default:''"`  // vertex: global, us, eu or a region
	// The other secrets, sealed like the api key, each with what the admin
	// may see of it (see last4); nil when the type has none.
	AWSSecretCipher       []byte
	AWSSecretLast4        string `gorm:"size:8;not null;default:''"`
	AWSSessionTokenCipher []byte
	AWSSessionTokenLast4  string `gorm:"size:8;not null;default:''"`
	CredentialsCipher     []byte // vertex: the service account key file (JSON)
	CredentialsLast4      string `gorm:"size:8;not null;default:''"`
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// Deployment is a model entry: a public name served by one upstream model of
// one provider. Entries sharing a public name form a pool, in which an
// enabled entry is a member.
//
// One thing, three words, on purpose: "entry" is what the pages and the
// management API call it (/api/models, the Models page), "member" is the
// same entry seen inside its pool (the pool status answer's "members", the
// proxy's member), and the type keeps the name "Deployment" because the
// contract's field and header names say so (deployment_id,
// x-gateway-deployment-id, the sticky API) and the table is "deployments";
// renaming the type alone would make the code disagree with its wire names.
type Deployment struct {
	ID            int64    `gorm:"primaryKey"`
	PublicName    string   `gorm:"size:500;not null;index"`
	ProviderID    int64    `gorm:"not null;index"`
	Provider      Provider `gorm:"constraint:OnDelete:RESTRICT"`
	UpstreamModel string   `gorm:"size:500;not null"`
	// Weight nil means unset, which simple-shuffle reads as 0.
	Weight *float64
	// CooldownSeconds nil means "retry-after, else the default"; 0 disables cooldown.
	CooldownSeconds *int
	TimeoutSeconds  *int
	ContextWindow   *int
	// Prices are the entry's own; a price it leaves unset is the price
	// catalog's for its provider type and model.
	Prices `gorm:"embedded"`
	// BaseModel names the model the catalog prices the entry as, when its
	// upstream model does not say (an Azure deployment's name is the
	// admin's choice); "" looks up the upstream model.
	BaseModel string `gorm:"size:500;not null;default:''"`
	// RateLimits cap what the entry may take per minute; at its limit it is
	// no candidate until the next minute.
	RateLimits `gorm:"embedded"`
	// Priority is the entry's tier: the lowest tier with a candidate serves,
	// a higher one only while every member of the lower ones is cooling down
	// or at its limit.
	Priority int `gorm:"not null;default:0"`
	// Enabled has no column default on purpose: GORM leaves a zero value with a
	// default out of an INSERT, which would store false as true.
	Enabled   bool `gorm:"not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IsWildcard reports whether the entry is a wildcard route such as "anthropic/*".
func (d *Deployment) IsWildcard() bool {
	n := len(d.PublicName)
	return n > 0 && d.PublicName[n-1] == '*'
}

// Prices are USD per million tokens of each token class, each optional:
// nil is unset (the price catalog's applies), 0 is free. Cache writes are
// priced by how long the cache keeps them (5 minutes or 1 hour). Past
// LongContextThreshold input tokens (cached ones included) every token of
// a request takes the long prices.
type Prices struct {
	InputPrice            *float64
	OutputPrice           *float64
	CacheReadPrice        *float64
	CacheWritePrice       *float64
	CacheWrite1hPrice     *float64 `gorm:"column:cache_write_1h_price"`
	LongContextThreshold  *int64
	LongInputPrice        *float64
	LongOutputPrice       *float64
	LongCacheReadPrice    *float64
	LongCacheWritePrice   *float64
	LongCacheWrite1hPrice *float64 `gorm:"column:long_cache_write_1h_price"`
}

// PoolSetting holds pool-wide settings, stored by public name.
type PoolSetting struct {
	PublicName       string `gorm:"primaryKey;size:500"`
	StickyTTLSeconds *int
	NumRetries       *int
	AllowedFails     *int
	// RoutingStrategy picks among a tier's candidates; "" is simple-shuffle.
	RoutingStrategy string `gorm:"size:30;not null;default:''"`
	UpdatedAt       time.Time
}

// Routing strategies of a pool (PoolSetting.RoutingStrategy).
const (
	StrategySimpleShuffle = "simple-shuffle"
	StrategyLatencyBased  = "latency-based"
	StrategyLeastBusy     = "least-busy"
	StrategyUsageBased    = "usage-based"
	StrategyCostBased     = "cost-based"
)

// RoutingStrategies are the strategies a pool may take, the default first.
var RoutingStrategies = []string{StrategySimpleShuffle, StrategyLatencyBased, StrategyLeastBusy,
	StrategyUsageBased, StrategyCostBased}

// Fallback is one target in the ordered fallback list of a public name.
type Fallback struct {
	ID         int64  `gorm:"primaryKey"`
	PublicName string `gorm:"size:500;not null;uniqueIndex:idx_fallback_target"`
	Kind       string `gorm:"size:20;not null;uniqueIndex:idx_fallback_target"`
	Target     string `gorm:"size:500;not null;uniqueIndex:idx_fallback_target"`
	Position   int    `gorm:"not null"`
	CreatedAt  time.Time
}

// Budget is a holder's spending limit and its spend: keys, users and teams
// each carry one, embedded, so their columns keep these names
// (max_budget_usd, …, spend_usd) in each table.
type Budget struct {
	MaxBudgetUSD   *float64
	SoftBudgetUSD  *float64
	BudgetDuration string `gorm:"size:20;not null;default:''"` // a BudgetPeriod's syntax; "" never resets
	BudgetResetAt  *time.Time
	SpendUSD       float64 `gorm:"not null;default:0"`
}

// RateLimits are a holder's requests and tokens per minute (keys, teams and
// model entries).
type RateLimits struct {
	RPMLimit *int
	TPMLimit *int
}

// Team groups users and carries its own budget and limits.
type Team struct {
	ID         int64  `gorm:"primaryKey"`
	Name       string `gorm:"size:200;not null;uniqueIndex"`
	Budget     `gorm:"embedded"`
	RateLimits `gorm:"embedded"`
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// User is a person or service that owns keys and carries its own budget.
type User struct {
	ID        int64  `gorm:"primaryKey"`
	Name      string `gorm:"size:200;not null;uniqueIndex"`
	Email     string `gorm:"size:320;not null;default:''"`
	TeamID    *int64 `gorm:"index"`
	Team      *Team  `gorm:"constraint:OnDelete:SET NULL"`
	Budget    `gorm:"embedded"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// VirtualKey is what callers send. Only the SHA-256 of the key is stored.
type VirtualKey struct {
	ID      int64  `gorm:"primaryKey"`
	Name    string `gorm:"size:200;not null"`
	KeyHash string `gorm:"size:64;not null;uniqueIndex" audit:"-"`
	// KeyHint is a recognisable, harmless part of the key: "sk-…" plus its last four characters.
	KeyHint    string     `gorm:"size:20;not null;default:''"`
	Models     StringList `gorm:"type:text;not null;default:'[]'"`
	Budget     `gorm:"embedded"`
	RateLimits `gorm:"embedded"`
	UserID     *int64 `gorm:"index"`
	User       *User  `gorm:"constraint:OnDelete:SET NULL"`
	TeamID     *int64 `gorm:"index"`
	Team       *Team  `gorm:"constraint:OnDelete:SET NULL"`
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Active reports whether the key may be used at time now.
func (k *VirtualKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// RequestLog is one proxied request, written asynchronously in batches.
type RequestLog struct {
	ID               int64     `gorm:"primaryKey"`
	CreatedAt        time.Time `gorm:"index"`
	RequestID        string    `gorm:"size:64;not null;default:'';index"`
	KeyID            *int64    `gorm:"index"`
	UserID           *int64
	TeamID           *int64
	Model            string `gorm:"size:500;not null;default:'';index"`
	DeploymentID     *int64 `gorm:"index"`
	ProviderID       *int64
	ProviderName     string  `gorm:"size:200;not null;default:''"`
	UpstreamModel    string  `gorm:"size:500;not null;default:''"`
	Endpoint         string  `gorm:"size:100;not null;default:''"`
	Stream           bool    `gorm:"not null;default:false"`
	Status           int     `gorm:"not null;default:0;index"`
	LatencyMS        int64   `gorm:"not null;default:0"`
	TTFBMS           int64   `gorm:"not null;default:0"`
	InputTokens      int64   `gorm:"not null;default:0"`
	OutputTokens     int64   `gorm:"not null;default:0"`
	CacheReadTokens  int64   `gorm:"not null;default:0"`
	CacheWriteTokens int64   `gorm:"not null;default:0"`
	CostUSD          float64 `gorm:"not null;default:0"`
	// The usage as it was billed: InputTokens counts every prompt token,
	// of which CacheReadTokens were read from the prompt cache and
	// CacheWriteTokens written to it, CacheWrite1hTokens of those for an
	// hour (the rest for 5 minutes); ReasoningTokens are part of
	// OutputTokens.
	CacheWrite1hTokens int64 `gorm:"column:cache_write_1h_tokens;not null;default:0"`
	ReasoningTokens    int64 `gorm:"not null;default:0"`
	// CostUSD's parts: uncached input, cache reads, cache writes, output.
	CostInputUSD      float64 `gorm:"not null;default:0"`
	CostCacheReadUSD  float64 `gorm:"not null;default:0"`
	CostCacheWriteUSD float64 `gorm:"not null;default:0"`
	CostOutputUSD     float64 `gorm:"not null;default:0"`
	// PriceSource says where the prices billed came from: "entry",
	// "catalog", both joined by "+", or "none" when a token class had no
	// price, and the cost is unknown; "" when there was no usage to bill.
	PriceSource string `gorm:"size:40;not null;default:''"`
	// LongContext: the request was past its entry's long-context threshold
	// and took the long prices.
	LongContext bool `gorm:"not null;default:false"`
	// UsageEstimated: the stream ended without the upstream's final usage
	// (the caller left, the upstream broke off), so the output tokens are
	// estimated from what reached the caller.
	UsageEstimated bool   `gorm:"not null;default:false"`
	Attempts       int    `gorm:"not null;default:0"`
	Fallback       string `gorm:"size:500;not null;default:''"`
	Error          string `gorm:"size:2000;not null;default:''"`
	// Trace is the request's attempts when there was more than one or one
	// failed (see Trace).
	Trace Trace `gorm:"type:text;not null;default:''"`
}

// HealthCheck is the last live check of one deployment.
type HealthCheck struct {
	DeploymentID int64 `gorm:"primaryKey;autoIncrement:false"`
	CheckedAt    time.Time
	OK           bool   `gorm:"not null"`
	LatencyMS    int64  `gorm:"not null;default:0"`
	Error        string `gorm:"size:2000;not null;default:''"`
}

// AdminUser signs in to the admin web app. Passwords are bcrypt hashes.
//
// Role has a column default of owner for the rows of before roles (the one
// bootstrap admin); CreateAdminUser always sets one.
type AdminUser struct {
	ID       int64  `gorm:"primaryKey"`
	Username string `gorm:"size:100;not null;uniqueIndex"`
	Role     string `gorm:"size:20;not null;default:'owner'"`
	// PasswordHash is "" for an account that signs in by SSO only.
	PasswordHash      string `gorm:"size:100;not null;default:''" audit:"-"`
	PasswordChangedAt *time.Time
	// OIDCSubject is "issuer|sub" of an account created by SSO sign-in.
	OIDCSubject *string `gorm:"column:oidc_subject;size:600;uniqueIndex"`
	// SessionEpoch goes up when the role or password changes: sessions
	// signed in under an older epoch end.
	SessionEpoch int `gorm:"not null;default:0" audit:"-"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Setting is one gateway-wide setting.
type Setting struct {
	Key       string `gorm:"primaryKey;size:100"`
	Value     string `gorm:"type:text;not null"`
	UpdatedAt time.Time
}

// StringList is a list of strings stored as a JSON array in a text column.
type StringList []string

// Value implements driver.Valuer.
func (l StringList) Value() (driver.Value, error) {
	if l == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *StringList) Scan(src any) error {
	if src == nil {
		*l = nil
		return nil
	}
	b, err := columnBytes(src, "StringList")
	if err != nil {
		return err
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// columnBytes is a text column's value as the driver gives it (a string
// or bytes; nil for NULL), for the Scan of a JSON-valued type.
func columnBytes(src any, what string) ([]byte, error) {
	switch v := src.(type) {
	case string:
		return []byte(v), nil
	case []byte:
		return v, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("models: scan %s from %T", what, src)
}

// Where a price comes from: the model entry, the price catalog, or nowhere.
const (
	PriceSourceEntry   = "entry"
	PriceSourceCatalog = "catalog"
	PriceSourceNone    = "none"
)

// CostKnown reports whether every token the request used had a price, so
// that CostUSD is what it cost.
func (l *RequestLog) CostKnown() bool { return l.PriceSource != PriceSourceNone }

// PricesOf is an entry's input and output prices alone, USD per million
// tokens.
func PricesOf(input, output float64) Prices { return Prices{InputPrice: &input, OutputPrice: &output} }
