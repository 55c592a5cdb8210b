package handlers

import (
	"net/http"
	"net/http/pprof"
)

// routes lists every route of the admin listener.
func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	page, api := a.requireAdmin, a.requireAPI

	mux.HandleFunc("GET /healthz", a.healthz)
	mux.Handle("GET /static/", a.staticFiles())

	// Web app.
	mux.HandleFunc("GET /login", a.showLogin)
	mux.HandleFunc("POST /login", a.login)
	mux.Handle("POST /logout", page(a.logout))
	mux.Handle("GET /{$}", page(a.showDashboard))
	mux.Handle("GET /models", page(a.showModels))
	mux.Handle("POST /models", page(a.createModelEntry))
	mux.Handle("POST /models/{id}/weight", page(a.setEntryWeight))
	mux.Handle("POST /models/{id}/enabled", page(a.setEntryEnabled))
	mux.Handle("POST /models/{id}/delete", page(a.deleteEntry))
	mux.Handle("POST /models/fallbacks", page(a.setFallbacksForm))
	mux.Handle("POST /models/pool-settings", page(a.setPoolSettingsForm))
	mux.Handle("GET /settings", page(a.showSettingsPage))
	mux.Handle("POST /settings", page(a.saveSettingsForm))
	mux.Handle("GET /models/{id}/edit", page(a.showEntryEdit))
	mux.Handle("GET /models/{id}/view", page(a.showEntryGroup))
	mux.Handle("POST /models/{id}", page(a.updateEntryForm))
	mux.Handle("GET /pools/{public_name}", page(a.showPoolPage))
	mux.Handle("POST /pools/{public_name}/check", page(a.checkPoolPage))
	mux.Handle("POST /pools/{public_name}/members/{id}/end-cooldown", page(a.endCooldownPage))
	mux.Handle("POST /api/pools/{public_name}/check", api(a.checkPoolAPI))
	mux.Handle("GET /providers", page(a.showProviders))
	mux.Handle("POST /providers", page(a.createProviderPage))
	mux.Handle("GET /providers/fields", page(a.showProviderFields))
	mux.Handle("GET /providers/{id}/fields", page(a.showProviderFields))
	mux.Handle("GET /providers/{id}/edit", page(a.showEditProvider))
	mux.Handle("POST /providers/{id}", page(a.updateProviderPage))
	mux.Handle("POST /providers/{id}/delete", page(a.deleteProviderPage))
	mux.Handle("POST /providers/{id}/test", page(a.testProviderPage))
	mux.Handle("GET /keys", page(a.showKeys))
	mux.Handle("POST /keys", page(a.createKeyPage))
	mux.Handle("POST /keys/{id}/revoke", page(a.revokeKeyPage))
	mux.Handle("GET /keys/{id}/edit", page(a.showEditKey))
	mux.Handle("POST /keys/{id}", page(a.updateKeyPage))
	mux.Handle("POST /keys/{id}/delete", page(a.deleteKeyPage))
	mux.Handle("GET /teams", page(a.showTeams))
	mux.Handle("POST /teams", page(a.createTeamPage))
	mux.Handle("GET /teams/{id}/edit", page(a.showEditTeam))
	mux.Handle("POST /teams/{id}", page(a.updateTeamPage))
	mux.Handle("POST /teams/{id}/delete", page(a.deleteTeamPage))
	mux.Handle("GET /users", page(a.showUsers))
	mux.Handle("POST /users", page(a.createUserPage))
	mux.Handle("GET /users/{id}/edit", page(a.showEditUser))
	mux.Handle("POST /users/{id}", page(a.updateUserPage))
	mux.Handle("POST /users/{id}/delete", page(a.deleteUserPage))
	mux.Handle("GET /logs", page(a.showLogs))
	mux.Handle("GET /logs/{id}", page(a.showLogDetail))
	mux.Handle("GET /sticky", page(a.showSticky))
	mux.Handle("GET /sticky/members", page(a.showStickyMembers))
	mux.Handle("POST /sticky", page(a.pinStickyPage))
	mux.Handle("POST /sticky/clear", page(a.clearStickyPage))
	mux.Handle("POST /sticky/clear-all", page(a.clearAllStickyPage))
	// Users and teams in the management API (the rest is below).
	mux.Handle("POST /api/users", api(a.createUser))
	mux.Handle("GET /api/users", api(a.listUsers))
	mux.Handle("PATCH /api/users/{id}", api(a.updateUser))
	mux.Handle("DELETE /api/users/{id}", api(a.deleteUser))
	mux.Handle("POST /api/teams", api(a.createTeam))
	mux.Handle("GET /api/teams", api(a.listTeams))
	mux.Handle("PATCH /api/teams/{id}", api(a.updateTeam))
	mux.Handle("DELETE /api/teams/{id}", api(a.deleteTeam))
	mux.Handle("/", page(a.notFound))

	// Management API.
	mux.Handle("POST /api/providers", api(a.createProvider))
	mux.Handle("GET /api/providers", api(a.listProviders))
	mux.Handle("PATCH /api/providers/{id}", api(a.updateProvider))
	mux.Handle("DELETE /api/providers/{id}", api(a.deleteProvider))

	mux.Handle("POST /api/models", api(a.createModelEntryAPI))
	mux.Handle("GET /api/models", api(a.listModelEntries))
	mux.Handle("PATCH /api/models/{id}", api(a.updateModelEntry))
	mux.Handle("DELETE /api/models/{id}", api(a.deleteModelEntry))

	mux.Handle("POST /api/keys", api(a.createKey))
	mux.Handle("GET /api/keys", api(a.listKeys))
	mux.Handle("PATCH /api/keys/{id}", api(a.updateKey))
	mux.Handle("DELETE /api/keys/{id}", api(a.deleteKey))

	mux.Handle("POST /api/fallbacks", api(a.setFallbacks))
	mux.Handle("GET /api/fallbacks", api(a.listFallbacks))

	mux.Handle("GET /api/pools", api(a.listPoolSettings))
	mux.Handle("PUT /api/pools/{public_name}", api(a.putPoolSetting))
	mux.Handle("GET /api/pools/{public_name}/status", api(a.showPoolStatus))
	mux.Handle("DELETE /api/pools/{public_name}/cooldowns/{id}", api(a.endCooldown))

	mux.Handle("GET /api/sticky", api(a.listSticky))
	mux.Handle("POST /api/sticky", api(a.pinSticky))
	mux.Handle("DELETE /api/sticky", api(a.clearSticky))

	mux.Handle("GET /api/stats", api(a.showStats))
	mux.Handle("GET /api/logs", api(a.listLogs))
	mux.Handle("GET /api/logs/{id}", api(a.showLog))
	mux.Handle("GET /api/settings", api(a.showSettings))
	mux.Handle("PUT /api/settings", api(a.putSettings))

	// Profiles, for the admin only (master key or session).
	mux.Handle("GET /debug/pprof/", api(pprof.Index))
	mux.Handle("GET /debug/pprof/cmdline", api(pprof.Cmdline))
	mux.Handle("GET /debug/pprof/profile", api(pprof.Profile))
	mux.Handle("GET /debug/pprof/symbol", api(pprof.Symbol))
	mux.Handle("GET /debug/pprof/trace", api(pprof.Trace))

	mux.Handle("/api/", api(a.apiNotFound))
	return mux
}
