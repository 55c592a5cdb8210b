package handlers

// RouteAccess describes one route of the admin listener for tests: its
// pattern, whether it is public, on the API, and who may use it.
type RouteAccess struct {
	Pattern string
	Public  bool
	API     bool
	// Access is "any admin", "by role", "writers" or "owners only".
	Access string
}

// Routes lists every route of routeTable.
func (a *App) Routes() []RouteAccess {
	names := map[access]string{public: "public", anyAdmin: "any admin", byRole: "by role", writers: "writers", ownersOnly: "owners only"}
	var out []RouteAccess
	for _, rt := range a.routeTable() {
		out = append(out, RouteAccess{Pattern: rt.pattern, Public: rt.on == onPublic, API: rt.on == onAPI, Access: names[rt.access]})
	}
	return out
}
