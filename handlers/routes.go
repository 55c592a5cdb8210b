package handlers

import (
	"net/http"
	"net/http/pprof"
)

// route is one route of the admin listener: a page, an API endpoint or a
// public one, and who may use it.
type route struct {
	pattern string
	on      surface
	access  access
	handler http.HandlerFunc
}

// surface is where a route is: its sign-in check and how it refuses.
type surface int

const (
	onPublic surface = iota
	onPage           // the web app: a session, refused with a page
	onAPI            // /api: the master key or a session, refused with JSON
)

// routes serves every route of routeTable.
func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range a.routeTable() {
		var h http.Handler = rt.handler
		switch rt.on {
		case onPage:
			h = a.requireAdmin(rt.access, rt.handler)
		case onAPI:
			h = a.requireAPI(rt.access, rt.handler)
		}
		mux.Handle(rt.pattern, h)
	}
	return mux
}

// routeTable lists every route of the admin listener. A route's access is
// enforced by requireAdmin and requireAPI alone, and TestViewerWritesNothing
// sends a viewer's request to every route of this table.
func (a *App) routeTable() []route {
	return []route{
		{"GET /healthz", onPublic, public, a.healthz},
		{"GET /static/", onPublic, public, a.staticFiles().ServeHTTP},

		// Web app.
		{"GET /login", onPublic, public, a.showLogin},
		{"POST /login", onPublic, public, a.login},
		{"GET /auth/oidc/login", onPublic, public, a.ssoLogin},
		{"GET " + ssoCallbackPath, onPublic, public, a.ssoCallback},
		{"POST /logout", onPage, anyAdmin, a.logout},
		{"GET /{$}", onPage, byRole, a.showDashboard},
		{"GET /models", onPage, byRole, a.showModels},
		{"POST /models", onPage, byRole, a.createModelEntry},
		{"POST /models/{id}/weight", onPage, byRole, a.setEntryWeight},
		{"POST /models/{id}/enabled", onPage, byRole, a.setEntryEnabled},
		{"POST /models/{id}/delete", onPage, byRole, a.deleteEntry},
		{"POST /models/fallbacks", onPage, byRole, a.setFallbacksForm},
		{"POST /models/pool-settings", onPage, byRole, a.setPoolSettingsForm},
		{"GET /settings", onPage, byRole, a.showSettingsPage},
		{"POST /settings", onPage, byRole, a.saveSettingsForm},
		{"GET /models/{id}/edit", onPage, byRole, a.showEntryEdit},
		{"GET /models/{id}/view", onPage, byRole, a.showEntryGroup},
		{"POST /models/{id}", onPage, byRole, a.updateEntryForm},
		{"GET /pools/{public_name}", onPage, byRole, a.showPoolPage},
		{"POST /pools/{public_name}/check", onPage, byRole, a.checkPoolPage},
		{"POST /pools/{public_name}/members/{id}/end-cooldown", onPage, byRole, a.endCooldownPage},
		{"POST /api/pools/{public_name}/check", onAPI, byRole, a.checkPoolAPI},
		{"GET /providers", onPage, byRole, a.showProviders},
		{"POST /providers", onPage, byRole, a.createProviderPage},
		{"GET /providers/fields", onPage, byRole, a.showProviderFields},
		{"GET /providers/{id}/fields", onPage, byRole, a.showProviderFields},
		{"GET /providers/{id}/edit", onPage, byRole, a.showEditProvider},
		{"POST /providers/{id}", onPage, byRole, a.updateProviderPage},
		{"POST /providers/{id}/delete", onPage, byRole, a.deleteProviderPage},
		{"POST /providers/{id}/test", onPage, byRole, a.testProviderPage},
		{"GET /keys", onPage, byRole, a.showKeys},
		{"POST /keys", onPage, byRole, a.createKeyPage},
		{"POST /keys/{id}/revoke", onPage, byRole, a.revokeKeyPage},
		{"GET /keys/{id}/edit", onPage, byRole, a.showEditKey},
		{"POST /keys/{id}", onPage, byRole, a.updateKeyPage},
		{"POST /keys/{id}/delete", onPage, byRole, a.deleteKeyPage},
		{"GET /teams", onPage, byRole, a.showTeams},
		{"POST /teams", onPage, byRole, a.createTeamPage},
		{"GET /teams/{id}/edit", onPage, byRole, a.showEditTeam},
		{"POST /teams/{id}", onPage, byRole, a.updateTeamPage},
		{"POST /teams/{id}/delete", onPage, byRole, a.deleteTeamPage},
		{"GET /users", onPage, byRole, a.showUsers},
		{"POST /users", onPage, byRole, a.createUserPage},
		{"GET /users/{id}/edit", onPage, byRole, a.showEditUser},
		{"POST /users/{id}", onPage, byRole, a.updateUserPage},
		{"POST /users/{id}/delete", onPage, byRole, a.deleteUserPage},
		{"GET /logs", onPage, byRole, a.showLogs},
		{"GET /logs/{id}", onPage, byRole, a.showLogDetail},
		{"GET /spend", onPage, byRole, a.showSpendPage},
		{"GET /spend/export", onPage, byRole, a.exportSpend},
		{"GET /sticky", onPage, byRole, a.showSticky},
		{"GET /audit", onPage, byRole, a.showAudit},
		{"GET /audit/{id}", onPage, byRole, a.showAuditDetail},
		{"GET /sticky/members", onPage, byRole, a.showStickyMembers},
		{"POST /sticky", onPage, byRole, a.pinStickyPage},
		{"POST /sticky/clear", onPage, byRole, a.clearStickyPage},
		{"POST /sticky/clear-all", onPage, byRole, a.clearAllStickyPage},
		// Users and teams in the management API (the rest is below).
		{"POST /api/users", onAPI, byRole, a.createUser},
		{"GET /api/users", onAPI, byRole, a.listUsers},
		{"GET /api/users/{id}", onAPI, byRole, a.showUser},
		{"PATCH /api/users/{id}", onAPI, byRole, a.updateUser},
		{"DELETE /api/users/{id}", onAPI, byRole, a.deleteUser},
		{"POST /api/teams", onAPI, byRole, a.createTeam},
		{"GET /api/teams", onAPI, byRole, a.listTeams},
		{"GET /api/teams/{id}", onAPI, byRole, a.showTeam},
		{"PATCH /api/teams/{id}", onAPI, byRole, a.updateTeam},
		{"DELETE /api/teams/{id}", onAPI, byRole, a.deleteTeam},
		// Admins (owners only) and one's own profile.
		{"GET /admins", onPage, ownersOnly, a.showAdmins},
		{"POST /admins", onPage, ownersOnly, a.createAdminPage},
		{"POST /admins/{id}/role", onPage, ownersOnly, a.setAdminRolePage},
		{"POST /admins/{id}/delete", onPage, ownersOnly, a.deleteAdminPage},
		{"GET /profile", onPage, anyAdmin, a.showProfile},
		{"POST /profile/password", onPage, anyAdmin, a.changeOwnPassword},
		{"POST /api/admins", onAPI, ownersOnly, a.createAdmin},
		{"GET /api/admins", onAPI, ownersOnly, a.listAdmins},
		{"PATCH /api/admins/{id}", onAPI, ownersOnly, a.updateAdmin},
		{"DELETE /api/admins/{id}", onAPI, ownersOnly, a.deleteAdmin},
		{"/", onPage, byRole, a.notFound},

		// Management API.
		{"POST /api/providers", onAPI, byRole, a.createProvider},
		{"GET /api/providers", onAPI, byRole, a.listProviders},
		{"PATCH /api/providers/{id}", onAPI, byRole, a.updateProvider},
		{"DELETE /api/providers/{id}", onAPI, byRole, a.deleteProvider},

		{"POST /api/models", onAPI, byRole, a.createModelEntryAPI},
		{"GET /api/models", onAPI, byRole, a.listModelEntries},
		{"PATCH /api/models/{id}", onAPI, byRole, a.updateModelEntry},
		{"DELETE /api/models/{id}", onAPI, byRole, a.deleteModelEntry},

		{"POST /api/keys", onAPI, byRole, a.createKey},
		{"GET /api/keys", onAPI, byRole, a.listKeys},
		{"GET /api/keys/{id}", onAPI, byRole, a.showKey},
		{"PATCH /api/keys/{id}", onAPI, byRole, a.updateKey},
		{"DELETE /api/keys/{id}", onAPI, byRole, a.deleteKey},

		{"POST /api/fallbacks", onAPI, byRole, a.setFallbacks},
		{"GET /api/fallbacks", onAPI, byRole, a.listFallbacks},

		{"GET /api/pools", onAPI, byRole, a.listPoolSettings},
		{"PUT /api/pools/{public_name}", onAPI, byRole, a.putPoolSetting},
		{"GET /api/pools/{public_name}/status", onAPI, byRole, a.showPoolStatus},
		{"DELETE /api/pools/{public_name}/cooldowns/{id}", onAPI, byRole, a.endCooldown},

		{"GET /api/sticky", onAPI, byRole, a.listSticky},
		{"POST /api/sticky", onAPI, byRole, a.pinSticky},
		{"DELETE /api/sticky", onAPI, byRole, a.clearSticky},

		{"GET /api/stats", onAPI, byRole, a.showStats},
		{"GET /api/logs", onAPI, byRole, a.listLogs},
		{"GET /api/logs/{id}", onAPI, byRole, a.showLog},
		{"GET /api/prices", onAPI, byRole, a.showPrices},
		{"PUT /api/prices/catalog", onAPI, byRole, a.importCatalog},
		{"DELETE /api/prices/catalog", onAPI, byRole, a.resetCatalog},
		{"GET /api/spend", onAPI, byRole, a.showSpend},
		{"GET /api/settings", onAPI, byRole, a.showSettings},
		{"PUT /api/settings", onAPI, byRole, a.putSettings},
		{"GET /api/audit", onAPI, byRole, a.listAudit},
		{"GET /api/audit/{id}", onAPI, byRole, a.showAuditEntry},

		// Profiles, for owners and admins (the command line may hold secrets).
		{"GET /debug/pprof/", onAPI, writers, pprof.Index},
		{"GET /debug/pprof/cmdline", onAPI, writers, pprof.Cmdline},
		{"GET /debug/pprof/profile", onAPI, writers, pprof.Profile},
		{"GET /debug/pprof/symbol", onAPI, writers, pprof.Symbol},
		{"GET /debug/pprof/trace", onAPI, writers, pprof.Trace},

		{"/api/", onAPI, byRole, a.apiNotFound},
	}
}
