package litellm

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// This file applies a Plan through the management API: it reads what
// the gateway has, creates only what is missing and records each step for
// the report.

// secretFields are the provider fields the API never shows again; it
// answers with their last four characters (<field>_last4).
var secretFields = []string{"api_key", "aws_secret_access_key", "aws_session_token", "credentials_json"}

// newerFields are the fields of the contract a gateway from before tiers,
// limits and strategies does not take ("unknown field"): against one the
// import goes on without them and says so. This gateway takes them all.
var newerFields = map[string]bool{"rpm_limit": true, "tpm_limit": true, "priority": true, "routing_strategy": true}

// Call is the gateway's management API as the import uses it: it sends
// body (nil: none) as JSON to path and decodes the answer into out (nil:
// the answer is not read); a refusal is an error that quotes the answer.
type Call func(ctx context.Context, method, path string, body, out any) error

// Apply reads what the gateway has through call and creates what plan asks
// for that it does not have yet (with dryRun, only says what it would). The
// error is one that stopped it before any write; a write that fails is in
// the report.
func Apply(ctx context.Context, call Call, plan *Plan, dryRun bool) (*Report, error) {
	im := &importer{call: call, plan: plan, dryRun: dryRun}
	if err := im.run(ctx); err != nil {
		return nil, err
	}
	return &im.rep, nil
}

// importer applies one plan.
type importer struct {
	call   Call
	plan   *Plan
	dryRun bool
	rep    Report

	providers   map[string]map[string]any // the gateway's, by name
	entries     map[[3]string]bool        // public name, provider, upstream model
	pools       map[string]map[string]any // the gateway's pool settings, by public name
	fallbacks   map[[2]string][]string    // public name, kind
	unsupported map[string]bool           // newer fields this gateway does not take
	providerIDs []any                     // per planned provider: its id, nil when not there
	names       []string                  // per planned provider: the name it has on the gateway
}

// Report is what the import did or would do, in the order it did it.
type Report struct {
	steps      []step
	notApplied map[string][]string // newer field → where it was left out
	failed     int
}

type step struct {
	section, verb string
	cols          []string
}

// Failed is how many writes failed.
func (r *Report) Failed() int { return r.failed }

func (r *Report) add(section, verb string, cols ...string) {
	r.steps = append(r.steps, step{section, verb, cols})
	if verb == "failed" {
		r.failed++
	}
}

func (r *Report) count(section, verb string) int {
	n := 0
	for _, s := range r.steps {
		if s.section == section && s.verb == verb {
			n++
		}
	}
	return n
}

// run reads the gateway's state and applies the plan step by step.
func (im *importer) run(ctx context.Context) error {
	if err := im.load(ctx); err != nil {
		return err
	}
	im.applyProviders(ctx)
	im.applyEntries(ctx)
	im.applyPools(ctx)
	im.applyFallbacks(ctx)
	return nil
}

// load reads providers, model entries, pool settings and fallbacks.
func (im *importer) load(ctx context.Context) error {
	var providers, entries, pools []map[string]any
	var fallbacks []Fallback
	for _, get := range []struct {
		path string
		out  any
	}{{"/api/providers", &providers}, {"/api/models", &entries}, {"/api/pools", &pools}, {"/api/fallbacks", &fallbacks}} {
		if err := im.call(ctx, http.MethodGet, get.path, nil, get.out); err != nil {
			return fmt.Errorf("import: read %s: %w", get.path, err)
		}
	}
	im.providers = map[string]map[string]any{}
	for _, p := range providers {
		im.providers[str(p["name"])] = p
	}
	im.entries = map[[3]string]bool{}
	for _, e := range entries {
		im.entries[[3]string{str(e["public_name"]), str(e["provider"]), str(e["upstream_model"])}] = true
	}
	im.pools = map[string]map[string]any{}
	for _, p := range pools {
		im.pools[str(p["public_name"])] = p
	}
	im.fallbacks = map[[2]string][]string{}
	for _, f := range fallbacks {
		im.fallbacks[[2]string{f.PublicName, f.Kind}] = f.Targets
	}
	// A field an answer does not have is one this gateway does not take.
	im.unsupported = map[string]bool{}
	im.markUnknown(entries, "rpm_limit", "tpm_limit", "priority")
	im.markUnknown(pools, "routing_strategy")
	return nil
}

func (im *importer) markUnknown(items []map[string]any, fields ...string) {
	if len(items) == 0 {
		return
	}
	for _, f := range fields {
		if _, ok := items[0][f]; !ok {
			im.unsupported[f] = true
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// applyProviders creates the providers the gateway does not have. A
// provider of the planned name with other settings is kept, and the new one
// gets the next free -2, -3.
func (im *importer) applyProviders(ctx context.Context) {
	taken := map[string]bool{}
	for i, p := range im.plan.Providers {
		name := p.Name
		for n := 2; ; n++ {
			if ex, ok := im.providers[name]; ok && !taken[name] && sameProvider(ex, p.Body) {
				im.providerIDs = append(im.providerIDs, ex["id"])
				im.names = append(im.names, name)
				im.rep.add("providers", "exists", providerCols(name, p.Body)...)
				break
			}
			if _, ok := im.providers[name]; !ok && !taken[name] {
				im.providerIDs = append(im.providerIDs, im.createProvider(ctx, i, name))
				im.names = append(im.names, name)
				break
			}
			name = fmt.Sprintf("%s-%d", p.Name, n)
		}
		taken[name] = true
	}
}

func (im *importer) createProvider(ctx context.Context, i int, name string) any {
	p := im.plan.Providers[i]
	if im.dryRun {
		im.rep.add("providers", "would create", providerCols(name, p.Body)...)
		return nil
	}
	body := maps.Clone(p.Body)
	body["name"] = name
	var out map[string]any
	if err := im.call(ctx, http.MethodPost, "/api/providers", body, &out); err != nil {
		im.rep.add("providers", "failed", append(providerCols(name, p.Body), err.Error())...)
		return nil
	}
	im.rep.add("providers", "created", providerCols(name, p.Body)...)
	return out["id"]
}

// providerCols shows a provider without its secrets.
func providerCols(name string, body map[string]any) []string {
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(body)) {
		if k != "api_type" && k != "base_url" && !slices.Contains(secretFields, k) {
			extra = append(extra, fmt.Sprintf("%s=%v", k, body[k]))
		}
	}
	return []string{name, str(body["api_type"]), str(body["base_url"]), strings.Join(extra, " ")}
}

// sameProvider compares what the API shows: the settings, and each secret
// by its last four characters (all a gateway ever shows of it).
func sameProvider(ex, body map[string]any) bool {
	for k, v := range body {
		if slices.Contains(secretFields, k) {
			shown, ok := ex[k+"_last4"].(string)
			if ok && shown != "" && shown != secretLast4(k, str(v)) {
				return false
			}
			continue
		}
		got, want := fmt.Sprint(ex[k]), fmt.Sprint(v)
		if k == "base_url" {
			got, want = strings.TrimRight(got, "/"), strings.TrimRight(want, "/")
		}
		if got != want {
			return false
		}
	}
	return true
}

// secretLast4 is what the gateway shows of a secret: its last four
// characters when it has at least 12, a key file's by its key id.
func secretLast4(field, v string) string {
	if field == "credentials_json" {
		var key struct {
			PrivateKeyID string `json:"private_key_id"`
		}
		_ = json.Unmarshal([]byte(v), &key) // the plan checked it is JSON
		v = key.PrivateKeyID
	}
	if len(v) < 12 {
		return ""
	}
	return v[len(v)-4:]
}

// applyEntries creates the model entries the gateway does not have.
func (im *importer) applyEntries(ctx context.Context) {
	for _, e := range im.plan.Entries {
		provider := im.names[e.Provider]
		key := [3]string{str(e.Body["public_name"]), provider, str(e.Body["upstream_model"])}
		cols := append(key[:], entryExtras(e.Body))
		switch {
		case im.entries[key]:
			im.rep.add("entries", "exists", key[:]...)
		case im.dryRun:
			im.rep.add("entries", "would create", cols...)
		case im.providerIDs[e.Provider] == nil:
			im.rep.add("entries", "failed", append(cols, "its provider was not created")...)
		default:
			body := maps.Clone(e.Body)
			body["provider_id"] = im.providerIDs[e.Provider]
			if err := im.send(ctx, http.MethodPost, "/api/models", body, key[0]+" → "+provider+" "+key[2]); err != nil {
				im.rep.add("entries", "failed", append(cols, err.Error())...)
				continue
			}
			im.rep.add("entries", "created", cols...)
		}
		im.entries[key] = true
	}
}

// entryExtras lists an entry's settings beside its identity.
func entryExtras(body map[string]any) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(body)) {
		if k != "public_name" && k != "upstream_model" {
			out = append(out, fmt.Sprintf("%s=%v", k, body[k]))
		}
	}
	return strings.Join(out, " ")
}

// send writes body, leaving out the newer fields this gateway does not
// take (known from its answers, or learnt from an "unknown field" refusal).
func (im *importer) send(ctx context.Context, method, path string, body map[string]any, what string) error {
	for {
		for f := range body {
			if im.unsupported[f] {
				im.notApplied(f, fmt.Sprintf("%s (%v)", what, body[f]))
				delete(body, f)
			}
		}
		err := im.call(ctx, method, path, body, nil)
		if err == nil {
			return nil
		}
		learnt := false
		for f := range body {
			if newerFields[f] && strings.Contains(err.Error(), f+": unknown field") {
				im.unsupported[f], learnt = true, true
			}
		}
		if !learnt {
			return err
		}
	}
}

func (im *importer) notApplied(field, where string) {
	if im.rep.notApplied == nil {
		im.rep.notApplied = map[string][]string{}
	}
	im.rep.notApplied[field] = append(im.rep.notApplied[field], where)
}

// poolFields are what PUT /api/pools/{name} takes; PUT replaces, so the
// ones the config does not set are sent as the gateway has them.
var poolFields = []string{"sticky_ttl_seconds", "num_retries", "allowed_fails", "routing_strategy"}

// applyPools sets the router's settings on every imported pool whose
// settings differ.
func (im *importer) applyPools(ctx context.Context) {
	for _, p := range im.plan.Pools {
		current := im.pools[p.PublicName]
		body := map[string]any{}
		for _, f := range poolFields {
			if v, ok := current[f]; ok && v != nil {
				body[f] = v
			}
		}
		same := true
		for f, v := range p.Body {
			if im.unsupported[f] {
				im.notApplied(f, fmt.Sprintf("pool %s (%v)", p.PublicName, v))
				continue
			}
			same = same && current != nil && fmt.Sprint(current[f]) == fmt.Sprint(v)
			body[f] = v
		}
		cols := []string{p.PublicName, entryExtras(p.Body)}
		switch {
		case same:
			im.rep.add("pools", "same", cols...)
		case im.dryRun:
			im.rep.add("pools", "would set", cols...)
		default:
			path := "/api/pools/" + url.PathEscape(p.PublicName)
			if err := im.send(ctx, http.MethodPut, path, body, "pool "+p.PublicName); err != nil {
				im.rep.add("pools", "failed", append(cols, err.Error())...)
				continue
			}
			im.rep.add("pools", "set", cols...)
		}
	}
}

// applyFallbacks sets each list that is not already the same.
func (im *importer) applyFallbacks(ctx context.Context) {
	for _, f := range im.plan.Fallbacks {
		old := im.fallbacks[[2]string{f.PublicName, f.Kind}]
		cols := []string{f.PublicName, f.Kind, "→ " + strings.Join(f.Targets, ", ")}
		if len(old) > 0 && !slices.Equal(old, f.Targets) {
			cols = append(cols, "(replaces "+strings.Join(old, ", ")+")")
		}
		switch {
		case slices.Equal(old, f.Targets):
			im.rep.add("fallbacks", "same", cols...)
		case im.dryRun:
			im.rep.add("fallbacks", "would set", cols...)
		default:
			if err := im.call(ctx, http.MethodPost, "/api/fallbacks", f, nil); err != nil {
				im.rep.add("fallbacks", "failed", append(cols, err.Error())...)
				continue
			}
			im.rep.add("fallbacks", "set", cols...)
		}
	}
}

// changes counts what was (or would be) written.
func (r *Report) changes() int {
	n := 0
	for _, s := range r.steps {
		switch s.verb {
		case "created", "set", "would create", "would set":
			n++
		}
	}
	return n
}

// summary is the report's last line.
func (r *Report) summary(dryRun bool) string {
	verbC, verbS := "created", "set"
	if dryRun {
		verbC, verbS = "would create", "would set"
	}
	if r.changes() == 0 && r.failed == 0 {
		return "Nothing new: the gateway already has everything this file describes."
	}
	s := fmt.Sprintf("%s %d providers and %d model entries; %s %d pool settings and %d fallback lists",
		verbC, r.count("providers", verbC), r.count("entries", verbC),
		verbS, r.count("pools", verbS), r.count("fallbacks", verbS))
	if dryRun {
		s = "Dry run, nothing was changed: it " + s
	} else {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if r.failed > 0 {
		s += fmt.Sprintf("; %d failed", r.failed)
	}
	return s + "."
}
