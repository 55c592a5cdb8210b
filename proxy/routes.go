package proxy

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// routes lists every endpoint of the proxy listener. Each path also gets a
// method-less pattern, so a wrong method is a 405 in OpenAI's shape rather
// than the catch-all 404.
func (s *Server) routes() http.Handler {
	routes := []struct {
		method, path string
		handler      http.HandlerFunc
	}{
		{http.MethodPost, "/v1/chat/completions", s.handle(endpointChat)},
		{http.MethodPost, "/chat/completions", s.handle(endpointChat)}, // clients configured without /v1
		{http.MethodPost, "/v1/messages", s.handle(endpointMessages)},  // Claude Code adds ?beta=true
		{http.MethodPost, "/v1/messages/count_tokens", s.handle(endpointCountTokens)},
		{http.MethodPost, "/v1/embeddings", s.handle(endpointEmbeddings)},
		{http.MethodPost, "/v1/responses", s.handle(endpointResponses)}, // Codex
		{http.MethodPost, "/responses", s.handle(endpointResponses)},
		{http.MethodPost, "/embeddings", s.handle(endpointEmbeddings)},
		{http.MethodGet, "/v1/responses/{id}", s.getResponse},
		{http.MethodDelete, "/v1/responses/{id}", s.deleteResponse},
		{http.MethodGet, "/v1/responses/{id}/input_items", s.listInputItems},
		{http.MethodGet, "/v1/models", s.listModels},
		{http.MethodGet, "/health/liveliness", s.liveliness},
		{http.MethodGet, "/health/readiness", s.readiness},
		// GET also answers HEAD, which Claude Code sends before anything else.
		{http.MethodGet, "/{$}", s.root},
	}
	mux := http.NewServeMux()
	allowed := make(map[string][]string)
	var paths []string
	for _, rt := range routes {
		mux.HandleFunc(rt.method+" "+rt.path, rt.handler)
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	for _, p := range paths {
		mux.HandleFunc(p, methodNotAllowed(allowed[p]...))
	}
	mux.HandleFunc("/", unknownPath)
	return mux
}

func methodNotAllowed(methods ...string) http.HandlerFunc {
	if slices.Contains(methods, http.MethodGet) {
		methods = append(methods, http.MethodHead)
	}
	allowed := strings.Join(methods, ", ")
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allowed)
		writeError(w, pathProtocol(r.URL.Path), errMethodNotAllowed(r))
	}
}

func unknownPath(w http.ResponseWriter, r *http.Request) {
	writeError(w, pathProtocol(r.URL.Path), errUnknownURL(r))
}

// pathProtocol is the protocol a caller of this path speaks.
func pathProtocol(path string) protocol {
	if strings.HasPrefix(path, "/v1/messages") || strings.HasPrefix(path, "/messages") {
		return protoAnthropic
	}
	return protoOpenAI
}

// root answers the probes clients send to the bare address, without a key.
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"status":"ok","service":"gateway","api":"/v1"}`))
}

func (s *Server) liveliness(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"status":"alive"}`))
}

// readiness is 503 until the first snapshot is loaded, so that a load
// balancer sends no traffic to a gateway that would refuse it all. Once
// loaded it says how the database and Redis answer: a gateway without them
// still serves (logs wait in the spool, limits and budgets are counted
// here), so it stays 200 and says "degraded".
func (s *Server) readiness(w http.ResponseWriter, r *http.Request) {
	if !s.Ready() {
		writeJSON(w, http.StatusServiceUnavailable, []byte(`{"status":"not ready"}`))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	status, db, redis := "ready", "ok", "off"
	if err := s.store.DB().Ping(ctx); err != nil {
		status, db = "degraded", "unreachable"
	}
	if s.cluster != nil {
		redis = "ok"
		if !s.cluster.Up() {
			status, redis = "degraded", "unreachable"
		}
	}
	writeJSON(w, http.StatusOK, []byte(`{"status":"`+status+`","database":"`+db+`","redis":"`+redis+`"}`))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the caller may be gone; nothing left to tell it
}
