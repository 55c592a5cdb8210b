package catalog

// FallbackTargets is the ordered list of the given kind that a request for
// name falls back to: the name's own, else the wildcard route's it came
// through, else the defaults under "*".
func (c *Catalog) FallbackTargets(name, kind string) []string {
	if kind == "" {
		return nil
	}
	if ts := c.fallbacks[name][kind]; len(ts) > 0 {
		return ts
	}
	if p, _, ok := c.Route(name); ok && p.Name != name {
		if ts := c.fallbacks[p.Name][kind]; len(ts) > 0 {
			return ts
		}
	}
	return c.fallbacks[DefaultFallbacks][kind]
}
