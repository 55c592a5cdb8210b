package catalog

import "strings"

// Group is what the admin pages show of one public name, in one answer: the
// pool that serves it, its own fallback lists with whether each target
// routes, and the prefix its name leaves without a route.
type Group struct {
	// Pool serves the name; nil when no entry of it is enabled.
	Pool *Pool
	// Fallbacks are the name's own lists by kind, each in its order; nil
	// when it has none.
	Fallbacks map[string][]Target
	// UncoveredPrefix is "prefix/" when the name looks like "prefix/model"
	// and no wildcard route serves every other name under that prefix.
	UncoveredPrefix string
}

// Target is one fallback target and whether a pool would serve it.
type Target struct {
	Name   string
	Routes bool
}

// Group answers the group of the public name name ("anthropic/*" for a
// wildcard route).
func (c *Catalog) Group(name string) Group {
	g := Group{Pool: c.Pool(name), UncoveredPrefix: c.uncoveredPrefix(name)}
	lists := c.fallbacks[name]
	if len(lists) > 0 {
		g.Fallbacks = make(map[string][]Target, len(lists))
	}
	for kind, targets := range lists {
		for _, t := range targets {
			_, _, routes := c.Route(t)
			g.Fallbacks[kind] = append(g.Fallbacks[kind], Target{Name: t, Routes: routes})
		}
	}
	return g
}

func (c *Catalog) uncoveredPrefix(name string) string {
	i := strings.IndexByte(name, '/')
	if i <= 0 || strings.HasSuffix(name, "*") {
		return ""
	}
	if prefix := name[:i+1]; !c.CoversAll(prefix) {
		return prefix
	}
	return ""
}
