package handlers

import "net/http"

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
	mux.Handle("GET /providers", page(a.comingSoon("Providers", "providers", "/api/providers")))
	mux.Handle("GET /keys", page(a.comingSoon("Keys", "keys", "/api/keys")))
	mux.Handle("GET /logs", page(a.comingSoon("Logs", "logs", "")))
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

	mux.Handle("GET /api/sticky", api(a.listSticky))
	mux.Handle("POST /api/sticky", api(a.pinSticky))
	mux.Handle("DELETE /api/sticky", api(a.clearSticky))

	mux.Handle("GET /api/stats", api(a.showStats))

	mux.Handle("/api/", api(a.apiNotFound))
	return mux
}
