package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"gateway/models"
	"gateway/models/dbtest"
)

// apiStep is one request of a scenario; steps run in order on one database.
type apiStep struct {
	name   string
	method string
	path   string // "{p1}" is replaced by the id saved as p1
	body   string // likewise
	status int
	// errMsg must be in the error message of a failed request.
	errMsg string
	// want holds top-level fields of the answer (an object), compared as JSON.
	want map[string]any
	// absent lists fields the answer must not have.
	absent []string
	// count is the length of a list answer, when >= 0 and the answer is a list.
	count *int
	// save remembers the answer's id under this name.
	save string
	// verify checks the database after the request.
	verify func(t *testing.T, s *models.Store)
	// check inspects the answer.
	check func(t *testing.T, rec *httptest.ResponseRecorder)
	// runtimeOnly marks a write of the proxy's runtime state: no reload.
	runtimeOnly bool
}

func runSteps(t *testing.T, ta *testApp, steps []apiStep) {
	t.Helper()
	ids := map[string]string{}
	expand := func(s string) string {
		for k, v := range ids {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			before := ta.reloader.n.Load()
			rec := ta.api(t, st.method, expand(st.path), expand(st.body))
			if rec.Code != st.status {
				t.Fatalf("%s %s: status %d, want %d\n%s", st.method, expand(st.path), rec.Code, st.status, rec.Body)
			}
			wantReloads := before
			if st.method != http.MethodGet && rec.Code < 300 && !st.runtimeOnly {
				wantReloads++
			}
			if got := ta.reloader.n.Load(); got != wantReloads {
				t.Errorf("Reload called %d times, want %d", got-before, wantReloads-before)
			}
			if st.errMsg != "" {
				if msg := errorMessage(t, rec); !strings.Contains(msg, st.errMsg) {
					t.Errorf("error message %q, want it to contain %q", msg, st.errMsg)
				}
			}
			if st.count != nil {
				if got := decodeJSON[[]map[string]any](t, rec); len(got) != *st.count {
					t.Errorf("list has %d items, want %d: %s", len(got), *st.count, rec.Body)
				}
			}
			if st.want != nil || st.absent != nil || st.save != "" {
				got := decodeJSON[map[string]any](t, rec)
				for k, v := range st.want {
					if g, w := jsonOf(t, got[k]), jsonOf(t, v); g != w {
						t.Errorf("%s = %s, want %s", k, g, w)
					}
				}
				for _, k := range st.absent {
					if _, ok := got[k]; ok {
						t.Errorf("answer has %q, want it absent: %s", k, rec.Body)
					}
				}
				if st.save != "" {
					ids[st.save] = fmt.Sprint(got["id"])
				}
			}
			if st.verify != nil {
				st.verify(t, ta.store)
			}
			if st.check != nil {
				st.check(t, rec)
			}
		})
		if !ok {
			return
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func n(i int) *int { return &i }

// providerCount verifies how many providers are stored.
func providerCount(want int) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ps, err := s.ListProviders(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != want {
			t.Errorf("%d providers stored, want %d", len(ps), want)
		}
	}
}

func entryCount(want int) func(t *testing.T, s *models.Store) {
	return func(t *testing.T, s *models.Store) {
		t.Helper()
		ds, err := s.ListDeployments(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != want {
			t.Errorf("%d model entries stored, want %d", len(ds), want)
		}
	}
}

const openaiBody = `{"name":"openai-main","api_type":"openai","base_url":"https://api.openai.com/v1","api_key":"sk-provider-key-abcd"}`

// TestAPIReloadFailure: when the routing table cannot be rebuilt after a
// committed write, the answer still says the write happened, with a warning;
// a new key's secret is not lost.
func TestAPIReloadFailure(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ta := newTestApp(t, s)
		ta.reloader.err = errReloadFailed
		wantWarning := func(t *testing.T, got map[string]any) {
			t.Helper()
			if w, _ := got["warning"].(string); !strings.Contains(w, "saved") || !strings.Contains(w, "routing table could not be rebuilt") {
				t.Errorf("warning %q should say the change was saved but the routing table was not rebuilt", w)
			}
		}
		rec := ta.api(t, "POST", "/api/keys", `{"name":"ci"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST /api/keys: status %d, want 201: %s", rec.Code, rec.Body)
		}
		key := decodeJSON[map[string]any](t, rec)
		if k, _ := key["key"].(string); !strings.HasPrefix(k, "sk-") || key["name"] != "ci" || key["id"] == nil {
			t.Errorf("the new key is not in the answer: %s", rec.Body)
		}
		wantWarning(t, key)

		rec = ta.api(t, "POST", "/api/providers", openaiBody)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST /api/providers: status %d, want 201: %s", rec.Code, rec.Body)
		}
		p := decodeJSON[map[string]any](t, rec)
		wantWarning(t, p)
		providerCount(1)(t, s)

		path := fmt.Sprintf("/api/providers/%v", p["id"])
		rec = ta.api(t, "PATCH", path, `{"name":"renamed"}`)
		if got := decodeJSON[map[string]any](t, rec); rec.Code != http.StatusOK || got["name"] != "renamed" {
			t.Fatalf("PATCH: status %d: %s", rec.Code, rec.Body)
		} else {
			wantWarning(t, got)
		}
		// A 204 cannot carry a warning: the delete answers 200 with it.
		rec = ta.api(t, "DELETE", path, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("DELETE: status %d, want 200: %s", rec.Code, rec.Body)
		}
		got := decodeJSON[map[string]any](t, rec)
		wantWarning(t, got)
		if len(got) != 1 {
			t.Errorf("DELETE answer %s, want only the warning", rec.Body)
		}
		providerCount(0)(t, s)
		if !strings.Contains(ta.logs.String(), errReloadFailed.Error()) {
			t.Errorf("the reload error is not logged:\n%s", ta.logs)
		}
		// Input errors are still errors.
		if rec := ta.api(t, "POST", "/api/keys", `{}`); rec.Code != http.StatusBadRequest {
			t.Errorf("bad input with a failing reload: status %d, want 400", rec.Code)
		}
	})
}

func TestAPIUnknownRoute(t *testing.T) {
	ta := newTestApp(t, dbtest.MustOpenStore(t, "", t.TempDir()))
	rec := ta.api(t, "GET", "/api/nothing-here", "")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", rec.Code)
	}
	errorMessage(t, rec)
}
