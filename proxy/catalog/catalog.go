// Package catalog is the routing catalog: the pools the stored model entries
// make, how a requested name finds its pool (exact name, else the wildcard
// route with the longest prefix), the fallback lists, and what a member's
// weight buys. The proxy routes on it and the admin pages read it, so the
// rules exist once.
//
// Names: a models.Deployment is a "model entry" on the pages and in the API
// (/api/models); inside a pool it is a "member". The catalog keeps the
// entries themselves as members, so the three names are one thing seen from
// three places.
package catalog

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"gateway/models"
)

// DefaultFallbacks is the public name whose fallbacks apply to every pool
// that has none of a kind.
const DefaultFallbacks = "*"

// Catalog is built once from the store and never changed: a reload builds a
// new one.
type Catalog struct {
	exact     map[string]*Pool // exact public names; wildcard patterns are not models
	wildcards []*Pool          // longest prefix first
	pools     []*Pool          // every pool, wildcard routes included, by name
	fallbacks map[string]map[string][]string
}

// Pool is every enabled entry sharing one public name. Disabled entries are
// left out, so a pool exists only while it has a member to offer.
type Pool struct {
	// Index is the pool's position in Pools(): tables kept beside the
	// catalog (the proxy's runtime members) are slices in the same order.
	Index    int
	Name     string
	Wildcard bool
	// Prefix is a wildcard route's name without its '*'.
	Prefix string
	// Created is the oldest member's creation.
	Created time.Time
	// Members are the enabled entries in the store's order.
	Members []*models.Deployment
}

// New builds the catalog. Members point into entries, which must not change
// afterwards. Fallback rows come ordered by name, kind and position, as the
// store lists them.
func New(entries []models.Deployment, fallbacks []models.Fallback) *Catalog {
	c := &Catalog{exact: make(map[string]*Pool), fallbacks: make(map[string]map[string][]string)}
	for i := range entries {
		c.add(&entries[i])
	}
	for _, p := range c.exact {
		if p.Wildcard {
			c.wildcards = append(c.wildcards, p)
		}
	}
	for _, p := range c.wildcards {
		// Exact lookups must never see a pattern: "openai/*" is not a model.
		delete(c.exact, p.Name)
	}
	slices.SortFunc(c.wildcards, func(a, b *Pool) int {
		return cmp.Or(cmp.Compare(len(b.Prefix), len(a.Prefix)), strings.Compare(a.Name, b.Name))
	})
	slices.SortFunc(c.pools, func(a, b *Pool) int { return strings.Compare(a.Name, b.Name) })
	for i, p := range c.pools {
		p.Index = i
	}
	for _, f := range fallbacks {
		if c.fallbacks[f.PublicName] == nil {
			c.fallbacks[f.PublicName] = make(map[string][]string)
		}
		c.fallbacks[f.PublicName][f.Kind] = append(c.fallbacks[f.PublicName][f.Kind], f.Target)
	}
	return c
}

func (c *Catalog) add(d *models.Deployment) {
	if !d.Enabled {
		return
	}
	p := c.exact[d.PublicName]
	if p == nil {
		p = &Pool{Name: d.PublicName, Wildcard: d.IsWildcard(), Created: d.CreatedAt}
		if p.Wildcard {
			p.Prefix = strings.TrimSuffix(d.PublicName, "*")
		}
		c.exact[d.PublicName] = p
		c.pools = append(c.pools, p)
	}
	if d.CreatedAt.Before(p.Created) {
		p.Created = d.CreatedAt
	}
	p.Members = append(p.Members, d)
}

// Route finds the pool that serves a requested model name: the exact name
// first, then the wildcard route with the longest matching prefix. suffix is
// the part of model that '*' matched (empty for an exact name).
func (c *Catalog) Route(model string) (p *Pool, suffix string, ok bool) {
	if p, ok := c.exact[model]; ok {
		return p, "", true
	}
	for _, p := range c.wildcards {
		// A bare prefix ("openai/") names no upstream model, so it matches nothing.
		if len(model) > len(p.Prefix) && strings.HasPrefix(model, p.Prefix) {
			return p, model[len(p.Prefix):], true
		}
	}
	return nil, "", false
}

// Pool returns the pool whose public name is exactly name ("anthropic/*" for
// a wildcard route), or nil when no enabled entry has that name.
func (c *Catalog) Pool(name string) *Pool {
	if p := c.exact[name]; p != nil {
		return p
	}
	for _, p := range c.wildcards {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Pools returns every pool, wildcard routes included, by name.
func (c *Catalog) Pools() []*Pool { return c.pools }

// CoversAll reports whether every name that starts with prefix, and is
// longer, routes through a wildcard route.
func (c *Catalog) CoversAll(prefix string) bool {
	for _, p := range c.wildcards {
		if strings.HasPrefix(prefix, p.Prefix) {
			return true
		}
	}
	return false
}

// UpstreamModel is the model a member asks its provider for when the pool
// was reached with suffix: on a wildcard route the matched suffix replaces
// '*' in the upstream model (which is used as is when it has none).
func (p *Pool) UpstreamModel(upstream, suffix string) string {
	if !p.Wildcard {
		return upstream
	}
	return strings.Replace(upstream, "*", suffix, 1)
}

// Checkable reports whether a member's upstream model names a model a live
// check can call: a wildcard route's pattern ("*", "claude-*") names none
// until a request fills it in.
func Checkable(upstreamModel string) bool { return !strings.Contains(upstreamModel, "*") }

// Member returns the pool's member with this entry id, or nil.
func (p *Pool) Member(id int64) *models.Deployment {
	for _, d := range p.Members {
		if d.ID == id {
			return d
		}
	}
	return nil
}
