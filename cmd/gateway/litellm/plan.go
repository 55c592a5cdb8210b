// Package litellm imports a LiteLLM proxy's config.yaml into a running
// gateway: ReadConfig turns the file into a Plan of management API requests,
// reading the environment and key files but calling nothing; Apply reads
// what the gateway has and creates what is missing; PrintReport says what
// was done, what was not mapped and what the gateway did not take.
package litellm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file turns a LiteLLM proxy config.yaml into a Plan: the
// management API requests it asks for, before looking at what the gateway
// already has. It reads the environment and key files but calls nothing.

// Plan is what a LiteLLM config asks of the gateway.
type Plan struct {
	Providers []Provider
	Entries   []Entry
	Pools     []Pool
	Fallbacks []Fallback
	Unmapped  []string // what the config says that the gateway does not take
}

// Provider is a POST /api/providers body and its readable name.
type Provider struct {
	Name string
	Body map[string]any // with "name" set when applied
}

// Entry is a POST /api/models body without its provider_id.
type Entry struct {
	Source   string // "model_list[2]"
	Provider int    // index in Plan.Providers
	Body     map[string]any
}

// Pool is a PUT /api/pools/{public_name} body.
type Pool struct {
	PublicName string
	Body       map[string]any
}

// Fallback is a POST /api/fallbacks body.
type Fallback struct {
	PublicName string   `json:"public_name"`
	Kind       string   `json:"kind"`
	Targets    []string `json:"targets"`
}

// routingStrategies maps LiteLLM's routing_strategy to the gateway's.
var routingStrategies = map[string]string{
	"simple-shuffle":         "simple-shuffle",
	"least-busy":             "least-busy",
	"latency-based-routing":  "latency-based",
	"usage-based-routing":    "usage-based",
	"usage-based-routing-v2": "usage-based",
	"cost-based-routing":     "cost-based",
}

// fallbackKinds maps LiteLLM's fallback settings to the gateway's kinds.
var fallbackKinds = []struct{ key, kind string }{
	{"fallbacks", "general"},
	{"context_window_fallbacks", "context_window"},
	{"content_policy_fallbacks", "content_policy"},
}

// planner holds what the sections share while the plan is built.
type planner struct {
	plan     Plan
	env      func(string) string
	readFile func(string) ([]byte, error)
	errs     []error
	byKey    map[string]int // provider identity → index in plan.Providers
	names    map[string]int // names given, for -2, -3
	defaults entryDefaults
}

// entryDefaults are router-wide settings LiteLLM applies to every deployment.
type entryDefaults struct {
	timeout *int
}

// defaultCooldown is the gateway's cooldown for a member whose upstream sent
// no retry-after and that sets no cooldown_seconds of its own.
const defaultCooldown = 60

// ReadConfig reads a config.yaml. Every problem is in the error, which
// comes back before anything is written.
func ReadConfig(raw []byte, getenv func(string) string, readFile func(string) ([]byte, error)) (*Plan, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not a LiteLLM config.yaml: %w", err)
	}
	pl := &planner{readFile: readFile, byKey: map[string]int{}, names: map[string]int{}}
	top := newYAMLFields("config", doc, getenv, &pl.errs)
	pl.env = configEnv(top, getenv)
	top.env = pl.env
	router := newYAMLFields("router_settings", pickRaw(top, "router_settings"), pl.env, &pl.errs)
	settings := newYAMLFields("litellm_settings", pickRaw(top, "litellm_settings"), pl.env, &pl.errs)
	pl.readDefaults(router, settings)
	pl.readModelList(top)
	pl.placeUnordered()
	pl.readPools(router, settings)
	pl.readFallbacks(router, settings)
	general := newYAMLFields("general_settings", pickRaw(top, "general_settings"), pl.env, &pl.errs)
	pl.readCooldown(router)
	pl.unmapped(router.rest("router_settings.")...)
	pl.unmapped(settings.rest("litellm_settings.")...)
	pl.unmapped(general.rest("general_settings.")...)
	pl.unmapped(top.rest("")...)
	if len(pl.errs) > 0 {
		return nil, errors.Join(pl.errs...)
	}
	return &pl.plan, nil
}

func pickRaw(f *yamlFields, key string) any {
	v, _ := f.raw(key)
	return v
}

func (pl *planner) unmapped(items ...string) {
	pl.plan.Unmapped = append(pl.plan.Unmapped, items...)
}

// configEnv is the environment as LiteLLM sees it: the config's own
// environment_variables section set over the process's.
func configEnv(top *yamlFields, getenv func(string) string) func(string) string {
	vars := newYAMLFields("environment_variables", pickRaw(top, "environment_variables"), getenv, top.errs)
	set := map[string]string{}
	for k := range vars.m {
		set[k] = vars.str(k)
	}
	return func(name string) string {
		if v, ok := set[name]; ok {
			return v
		}
		return getenv(name)
	}
}

// readDefaults takes the router-wide settings that become each new entry's.
func (pl *planner) readDefaults(router, settings *yamlFields) {
	if t, ok := router.whole("timeout", 1); ok {
		pl.defaults.timeout = t
	} else if t, ok := settings.whole("request_timeout", 1); ok {
		pl.defaults.timeout = t
	}
}

// readCooldown: LiteLLM's router cooldown_time stands in for a retry-after
// the upstream did not send. Copied to every entry as cooldown_seconds it
// would override retry-after (a quota's 309,788 s would become 30 s), so
// it is listed, not copied.
func (pl *planner) readCooldown(router *yamlFields) {
	if c, ok := router.whole("cooldown_time", 0); ok && *c != defaultCooldown {
		pl.unmapped(fmt.Sprintf("router_settings.cooldown_time: %d s is LiteLLM's cooldown when an upstream sends no retry-after; "+
			"the gateway's is %d s (an entry's cooldown_time becomes its cooldown_seconds, which overrides retry-after)", *c, defaultCooldown))
	}
}

func (pl *planner) readModelList(top *yamlFields) {
	v, ok := top.raw("model_list")
	if !ok {
		pl.errs = append(pl.errs, errors.New("config: no model_list"))
		return
	}
	list, ok := v.([]any)
	if !ok {
		pl.errs = append(pl.errs, fmt.Errorf("config.model_list: want a list, got %T", v))
		return
	}
	for i, m := range list {
		pl.readEntry(fmt.Sprintf("model_list[%d]", i), m)
	}
}

// readEntry maps one model_list entry to a provider and a model entry.
func (pl *planner) readEntry(source string, raw any) {
	e := newYAMLFields(source, raw, pl.env, &pl.errs)
	public := e.str("model_name")
	where := fmt.Sprintf("%s (%s)", source, public)
	e.where = where
	p := newYAMLFields(where+": litellm_params", pickRaw(e, "litellm_params"), pl.env, &pl.errs)
	info := newYAMLFields(where+": model_info", pickRaw(e, "model_info"), pl.env, &pl.errs)
	model := p.str("model")
	if public == "" || model == "" {
		pl.errs = append(pl.errs, fmt.Errorf("%s: want model_name and litellm_params.model", where))
		return
	}
	r := routeOf(model, p, pl.readFile)
	if r.skip != "" {
		pl.unmapped(fmt.Sprintf("%s: %s not imported: %s", where, model, r.skip))
		return
	}
	if r.body == nil {
		return // an error was recorded
	}
	body := map[string]any{"public_name": public, "upstream_model": r.upstream}
	pl.entryLimits(body, e, p)
	pl.entryPrices(body, p, info)
	for _, n := range r.notes {
		pl.unmapped(where + ": " + n)
	}
	pl.unmapped(prefixed(where+": ", e.rest(""))...)
	pl.unmapped(prefixed(where+": ", p.rest("litellm_params."))...)
	pl.unmapped(prefixed(where+": ", info.rest("model_info."))...)
	pl.plan.Entries = append(pl.plan.Entries, Entry{Source: source, Provider: pl.provider(r), Body: body})
}

// maxPriority is the highest tier the gateway takes (priority -1000..1000).
const maxPriority = 1000

// entryLimits: rpm and tpm (in litellm_params or beside them), weight,
// order, timeout and the entry's own cooldown_time.
func (pl *planner) entryLimits(body map[string]any, e, p *yamlFields) {
	for _, l := range []struct{ key, field string }{{"rpm", "rpm_limit"}, {"tpm", "tpm_limit"}} {
		at := p.where + "." + l.key
		n, ok := p.whole(l.key, 0)
		if !ok {
			at = e.where + ": " + l.key
			n, ok = e.whole(l.key, 0)
		}
		switch {
		case !ok:
		case *n == 0:
			// LiteLLM never picks it; the gateway's limits are 1 or more.
			pl.unmapped(at + ": 0 lets no request through, and the gateway's limits are 1 or more " +
				"(null is no limit): disable the entry to keep it out")
		default:
			body[l.field] = *n
		}
	}
	if w, ok := p.number("weight"); ok {
		body["weight"] = w
	}
	if o, ok := p.whole("order", 0); ok && *o > maxPriority {
		p.fail("order", "want a whole number of at most %d (the gateway's last tier), got %d", maxPriority, *o)
	} else if ok {
		body["priority"] = *o
	}
	if t, ok := p.whole("timeout", 1); ok {
		body["timeout_seconds"] = *t
	} else if pl.defaults.timeout != nil {
		body["timeout_seconds"] = *pl.defaults.timeout
	}
	if c, ok := p.whole("cooldown_time", 0); ok {
		body["cooldown_seconds"] = *c
	}
}

// placeUnordered: LiteLLM routes a deployment without an order only while
// every one of its model name with an order is out (it keeps the lowest
// order among the healthy ones), so in a pool where some entries have a
// priority, the others become the tier after the highest. At the last tier
// already they share it.
func (pl *planner) placeUnordered() {
	highest := map[string]int{}
	for _, e := range pl.plan.Entries {
		if p, ok := e.Body["priority"].(int); ok {
			name := e.Body["public_name"].(string)
			if h, seen := highest[name]; !seen || p > h {
				highest[name] = p
			}
		}
	}
	for _, e := range pl.plan.Entries {
		h, ordered := highest[e.Body["public_name"].(string)]
		if _, has := e.Body["priority"]; ordered && !has {
			e.Body["priority"] = min(h+1, maxPriority)
		}
	}
}

// litellmPriceKeys are LiteLLM's per-token costs and the entry's price
// fields they become.
var litellmPriceKeys = []struct{ key, field string }{
	{"input_cost_per_token", "input_price"},
	{"output_cost_per_token", "output_price"},
	{"cache_read_input_token_cost", "cache_read_price"},
	{"cache_creation_input_token_cost", "cache_write_price"},
	{"cache_creation_input_token_cost_above_1hr", "cache_write_1h_price"},
}

// entryPrices: per-token costs (model_info, or litellm_params' custom
// pricing) as USD per million tokens, and the context window.
func (pl *planner) entryPrices(body map[string]any, p, info *yamlFields) {
	price := func(key, field string) bool {
		if v, ok := info.perMillion(key); ok {
			body[field] = *v
		} else if v, ok := p.perMillion(key); ok {
			body[field] = *v
		} else {
			return false
		}
		return true
	}
	for _, c := range litellmPriceKeys {
		price(c.key, c.field)
	}
	// The long-context tier: the first threshold LiteLLM names a price for
	// ("…_above_200k_tokens").
	for _, k := range []string{"128k", "200k", "256k", "272k"} {
		found := false
		for _, c := range litellmPriceKeys {
			found = price(c.key+"_above_"+k+"_tokens", "long_"+c.field) || found
		}
		if found {
			n, _ := strconv.Atoi(strings.TrimSuffix(k, "k"))
			body["long_context_threshold"] = n * 1000
			break
		}
	}
	if n, ok := info.whole("max_input_tokens", 1); ok {
		body["context_window"] = *n
	}
}

// provider returns the index of r's provider, adding it the first time: one
// provider per distinct settings and credentials, named readably.
func (pl *planner) provider(r routeResult) int {
	k, _ := json.Marshal(r.body) // sorted keys: a stable identity
	if i, ok := pl.byKey[string(k)]; ok {
		return i
	}
	pl.names[r.name]++
	name := r.name
	if n := pl.names[r.name]; n > 1 {
		name = fmt.Sprintf("%s-%d", r.name, n)
	}
	pl.plan.Providers = append(pl.plan.Providers, Provider{Name: name, Body: r.body})
	pl.byKey[string(k)] = len(pl.plan.Providers) - 1
	return len(pl.plan.Providers) - 1
}

// readPools: the router's settings become every imported pool's.
func (pl *planner) readPools(router, settings *yamlFields) {
	body := map[string]any{}
	if n, ok := router.whole("num_retries", 0); ok {
		body["num_retries"] = *n
	} else if n, ok := settings.whole("num_retries", 0); ok {
		body["num_retries"] = *n
	}
	if n, ok := router.whole("allowed_fails", 0); ok {
		body["allowed_fails"] = *n
	}
	if s := router.str("routing_strategy"); s != "" {
		if g, ok := routingStrategies[s]; ok {
			body["routing_strategy"] = g
		} else {
			pl.unmapped(fmt.Sprintf("router_settings.routing_strategy: %s has no equivalent (the gateway has simple-shuffle, least-busy, latency-based, usage-based, cost-based)", s))
		}
	}
	if len(body) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, e := range pl.plan.Entries {
		name := e.Body["public_name"].(string)
		if !seen[name] {
			seen[name] = true
			pl.plan.Pools = append(pl.plan.Pools, Pool{PublicName: name, Body: maps.Clone(body)})
		}
	}
}

// readFallbacks: the three kinds from litellm_settings, then
// router_settings (which wins for a name both give), and default_fallbacks
// as the "*" pool's general list.
func (pl *planner) readFallbacks(router, settings *yamlFields) {
	lists := map[[2]string][]string{}
	for _, section := range []*yamlFields{settings, router} {
		for _, k := range fallbackKinds {
			if v, ok := section.raw(k.key); ok {
				pl.readFallbackList(section.where+"."+k.key, k.kind, v, lists)
			}
		}
		if v, ok := section.raw("default_fallbacks"); ok {
			if targets, ok := stringList(v); ok {
				lists[[2]string{"*", "general"}] = targets
			} else {
				pl.errs = append(pl.errs, fmt.Errorf("%s.default_fallbacks: want a list of model names", section.where))
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(lists), compareKeys) {
		pl.plan.Fallbacks = append(pl.plan.Fallbacks, Fallback{PublicName: k[0], Kind: k[1], Targets: lists[k]})
	}
}

func compareKeys(a, b [2]string) int {
	return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
}

// readFallbackList reads [{public_name: [targets]}, …].
func (pl *planner) readFallbackList(where, kind string, v any, lists map[[2]string][]string) {
	items, ok := v.([]any)
	if m, isMap := v.(map[string]any); isMap {
		items, ok = []any{m}, true
	}
	if !ok {
		pl.errs = append(pl.errs, fmt.Errorf("%s: want a list of {model_name: [fallbacks]}", where))
		return
	}
	for _, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			pl.errs = append(pl.errs, fmt.Errorf("%s: want {model_name: [fallbacks]}, got %v", where, item))
			continue
		}
		for name, t := range m {
			targets, ok := stringList(t)
			if !ok {
				pl.errs = append(pl.errs, fmt.Errorf("%s.%s: want a list of model names", where, name))
				continue
			}
			lists[[2]string{name, kind}] = targets
		}
	}
}

func stringList(v any) ([]string, bool) {
	if s, ok := v.(string); ok {
		return []string{s}, true
	}
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func prefixed(prefix string, items []string) []string {
	for i := range items {
		items[i] = prefix + items[i]
	}
	return items
}
