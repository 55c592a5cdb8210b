package catalog_test

import (
	"slices"
	"testing"
	"time"

	"gateway/models"
	"gateway/proxy/catalog"
)

func ptr[T any](v T) *T { return &v }

func testCatalog() *catalog.Catalog {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return catalog.New([]models.Deployment{
		{ID: 1, PublicName: "a/*", UpstreamModel: "*", Enabled: true, CreatedAt: t0.Add(time.Hour)},
		{ID: 6, PublicName: "a/*", UpstreamModel: "other-*", Enabled: true, CreatedAt: t0},
		{ID: 2, PublicName: "a/b-*", UpstreamModel: "x-*-y", Enabled: true},
		{ID: 3, PublicName: "a/b-exact", UpstreamModel: "e", Enabled: true},
		{ID: 4, PublicName: "*", UpstreamModel: "catch-*", Enabled: true},
		{ID: 5, PublicName: "off/*", UpstreamModel: "*", Enabled: false},
		{ID: 7, PublicName: "parked", UpstreamModel: "p", Enabled: false},
	}, []models.Fallback{
		{PublicName: "*", Kind: models.FallbackGeneral, Target: "default-1"},
		{PublicName: "a/*", Kind: models.FallbackGeneral, Target: "wild-1"},
		{PublicName: "a/*", Kind: models.FallbackGeneral, Target: "wild-2"},
		{PublicName: "a/b-exact", Kind: models.FallbackContextWindow, Target: "long"},
	})
}

// TestRoute is the one wildcard match the proxy routes by and the admin
// pages (fallback targets, sticky pins, the Models page's notes) read.
func TestRoute(t *testing.T) {
	c := testCatalog()
	for model, want := range map[string]struct{ pool, upstream string }{
		"a/gpt":     {"a/*", "gpt"},
		"a/b-1":     {"a/b-*", "x-1-y"},
		"a/b-":      {"a/*", "b-"}, // a bare prefix names nothing: the shorter wildcard takes it
		"a/b-exact": {"a/b-exact", "e"},
		"a/*":       {"a/*", "*"}, // a pattern is no exact name, but a wildcard serves it
		"zzz":       {"*", "catch-zzz"},
		"off/m":     {"*", "catch-off/m"}, // a disabled wildcard is no route: the catch-all takes it
	} {
		p, suffix, ok := c.Route(model)
		if !ok {
			t.Errorf("%s: no route", model)
			continue
		}
		if p.Name != want.pool || p.UpstreamModel(p.Members[0].UpstreamModel, suffix) != want.upstream {
			t.Errorf("%s: pool %s upstream %q, want %s %q", model, p.Name, p.UpstreamModel(p.Members[0].UpstreamModel, suffix), want.pool, want.upstream)
		}
	}
	if p, _, ok := catalog.New(nil, nil).Route("x"); ok {
		t.Errorf("an empty catalog routes x to %v", p)
	}
	noCatchAll := catalog.New([]models.Deployment{{ID: 1, PublicName: "a/*", UpstreamModel: "*", Enabled: true}}, nil)
	for _, model := range []string{"a/", "a", "b/x"} {
		if p, _, ok := noCatchAll.Route(model); ok {
			t.Errorf("%s routes to %s", model, p.Name)
		}
	}
}

func TestPools(t *testing.T) {
	c := testCatalog()
	var names []string
	for i, p := range c.Pools() {
		names = append(names, p.Name)
		if p.Index != i {
			t.Errorf("%s: index %d at position %d", p.Name, p.Index, i)
		}
	}
	if want := []string{"*", "a/*", "a/b-*", "a/b-exact"}; !slices.Equal(names, want) {
		t.Errorf("pools %v, want %v (enabled names only, by name)", names, want)
	}
	if p := c.Pool("a/*"); p == nil || len(p.Members) != 2 || p.Members[0].ID != 1 || !p.Created.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Pool(a/*) = %+v, want members 1 and 6 in store order, created by the oldest", p)
	}
	if c.Pool("parked") != nil || c.Pool("a/gpt") != nil {
		t.Error("Pool names a disabled entry, or a name only a wildcard serves")
	}
	if p := c.Pool("a/*"); p.Member(6) == nil || p.Member(7) != nil {
		t.Error("Member finds the wrong entries")
	}
}

func TestCoversAll(t *testing.T) {
	c := catalog.New([]models.Deployment{{ID: 1, PublicName: "openai/*", UpstreamModel: "*", Enabled: true}}, nil)
	for prefix, want := range map[string]bool{"openai/": true, "openai/gpt-": true, "anthropic/": false, "open": false} {
		if got := c.CoversAll(prefix); got != want {
			t.Errorf("CoversAll(%q) = %v, want %v", prefix, got, want)
		}
	}
}

// TestFallbackTargets: a name's own list, else its wildcard route's, else
// the defaults under "*".
func TestFallbackTargets(t *testing.T) {
	c := testCatalog()
	for _, tc := range []struct {
		name, kind string
		want       []string
	}{
		{"a/gpt", models.FallbackGeneral, []string{"wild-1", "wild-2"}},
		{"a/b-exact", models.FallbackGeneral, []string{"default-1"}},
		{"a/b-exact", models.FallbackContextWindow, []string{"long"}},
		{"unknown", models.FallbackGeneral, []string{"default-1"}},
		{"unknown", models.FallbackContentPolicy, nil},
		{"a/gpt", "", nil},
	} {
		if got := c.FallbackTargets(tc.name, tc.kind); !slices.Equal(got, tc.want) {
			t.Errorf("FallbackTargets(%s, %s) = %v, want %v", tc.name, tc.kind, got, tc.want)
		}
	}
	// wild-2 routes through the catch-all "*".
	want := []catalog.Target{{Name: "wild-1", Routes: true}, {Name: "wild-2", Routes: true}}
	if got := c.Group("a/*").Fallbacks[models.FallbackGeneral]; !slices.Equal(got, want) {
		t.Errorf("Group(a/*) general fallbacks = %v, want %v", got, want)
	}
}

// TestShares: the weight rules (weight/sum of the available members, else
// uniform; a weight-0 member is a reserve), as the pages show them and the
// router picks by.
func TestShares(t *testing.T) {
	all := func(int) bool { return true }
	for _, tc := range []struct {
		weights   []float64
		available func(int) bool
		want      []float64
	}{
		{[]float64{0, 1, 9}, all, []float64{0, 0.1, 0.9}},
		{[]float64{0, 0}, all, []float64{0.5, 0.5}},
		{[]float64{0, 1, 9}, func(i int) bool { return i == 0 }, []float64{1, 0, 0}}, // a reserve while the others cool
		{[]float64{2, 2}, func(i int) bool { return i == 1 }, []float64{0, 1}},
	} {
		if got := catalog.Shares(tc.weights, tc.available); !slices.Equal(got, tc.want) {
			t.Errorf("Shares(%v) = %v, want %v", tc.weights, got, tc.want)
		}
	}
	for w, want := range map[*float64]float64{nil: 0, ptr(-1.0): 0, ptr(0.0): 0, ptr(2.5): 2.5} {
		if got := catalog.Weight(&models.Deployment{Weight: w}); got != want {
			t.Errorf("Weight(%v) = %v, want %v", w, got, want)
		}
	}
}

func TestZeroWeightTrap(t *testing.T) {
	pool := func(ws ...*float64) *catalog.Pool {
		var es []models.Deployment
		for i, w := range ws {
			es = append(es, models.Deployment{ID: int64(i + 1), PublicName: "p", Weight: w, Enabled: true})
		}
		return catalog.New(es, nil).Pool("p")
	}
	for _, tc := range []struct {
		p    *catalog.Pool
		want bool
	}{
		{pool(ptr(0.0), nil), true},
		{pool(ptr(0.0), ptr(0.0)), true},
		{pool(nil, nil), false},
		{pool(ptr(0.0), ptr(1.0)), false},
		{pool(ptr(0.0)), false},
	} {
		if got := tc.p.ZeroWeightTrap(); got != tc.want {
			t.Errorf("ZeroWeightTrap(%d members) = %v, want %v", len(tc.p.Members), got, tc.want)
		}
	}
}

// TestCheckable: Check now, the background checks and the pool page agree
// on which members a live check can call.
func TestCheckable(t *testing.T) {
	for upstream, want := range map[string]bool{"gpt-4o": true, "*": false, "claude-*": false} {
		if got := catalog.Checkable(upstream); got != want {
			t.Errorf("Checkable(%q) = %v, want %v", upstream, got, want)
		}
	}
}

// TestGroup: one call answers what a pool's card shows: the pool (none
// while every entry is disabled), its own fallbacks with whether each target
// routes, and an uncovered prefix.
func TestGroup(t *testing.T) {
	c := testCatalog()
	g := c.Group("a/b-exact")
	if g.Pool == nil || g.Pool.Name != "a/b-exact" || g.UncoveredPrefix != "" {
		t.Errorf("a/b-exact: pool %v, uncovered %q", g.Pool, g.UncoveredPrefix)
	}
	if got, want := g.Fallbacks[models.FallbackContextWindow], []catalog.Target{{Name: "long", Routes: true}}; !slices.Equal(got, want) {
		t.Errorf("a/b-exact context window fallbacks = %v, want %v", got, want)
	}
	if g := c.Group("parked"); g.Pool != nil || g.Fallbacks != nil || g.UncoveredPrefix != "" {
		t.Errorf("parked = %+v, want no pool and no fallbacks", g)
	}
	noCatchAll := catalog.New([]models.Deployment{{ID: 1, PublicName: "x/m", UpstreamModel: "m", Enabled: true}},
		[]models.Fallback{{PublicName: "x/m", Kind: models.FallbackGeneral, Target: "nowhere"}})
	g = noCatchAll.Group("x/m")
	if g.UncoveredPrefix != "x/" {
		t.Errorf("x/m uncovered prefix %q, want x/", g.UncoveredPrefix)
	}
	if got, want := g.Fallbacks[models.FallbackGeneral], []catalog.Target{{Name: "nowhere"}}; !slices.Equal(got, want) {
		t.Errorf("x/m general fallbacks = %v, want %v", got, want)
	}
}
