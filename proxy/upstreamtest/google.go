package upstreamtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// GoogleTokenServer is a service account's token endpoint, as Google's
// oauth2.googleapis.com/token answers it: it takes a JWT assertion signed
// with the account's private key, checks its signature and claims, and
// issues an access token with expires_in. Its key file (KeyFile) names it
// as token_uri.
type GoogleTokenServer struct {
	*httptest.Server
	key   *rsa.PrivateKey
	Email string
	KeyID string
	// ExpiresIn is the lifetime of the tokens it issues (3600 s by default).
	ExpiresIn int
	mu        sync.Mutex
	issued    map[string]bool
	fetches   int
	refuse    bool
}

// NewGoogleTokenServer starts one with a new RSA key, closed when the test
// ends.
func NewGoogleTokenServer(t testing.TB) *GoogleTokenServer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &GoogleTokenServer{key: key, Email: "gateway@test-project.iam.gserviceaccount.com",
		KeyID: "0123456789abcdef0123456789abcdef01234567", ExpiresIn: 3600, issued: map[string]bool{}}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.Close)
	return g
}

// KeyFile is the service account's key file (JSON), its token_uri this
// server.
func (g *GoogleTokenServer) KeyFile() string {
	der, _ := x509.MarshalPKCS8PrivateKey(g.key)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "test-project", "private_key_id": g.KeyID,
		"private_key": string(pemKey), "client_email": g.Email, "client_id": "1234567890",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": g.URL + "/token",
	})
	return string(b)
}

// Fetches is how many tokens were issued.
func (g *GoogleTokenServer) Fetches() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fetches
}

// Refuse makes it refuse every assertion from now on, as for a key that
// was deleted.
func (g *GoogleTokenServer) Refuse() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refuse = true
}

// Authorized reports whether h carries a bearer token this server issued.
func (g *GoogleTokenServer) Authorized(h http.Header) bool {
	tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	g.mu.Lock()
	defer g.mu.Unlock()
	return ok && g.issued[tok]
}

func (g *GoogleTokenServer) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.URL.Path != "/token" {
		http.Error(w, "bad token request", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	refuse := g.refuse
	g.mu.Unlock()
	if err := g.checkAssertion(r); err != nil || refuse {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"invalid_grant","error_description":"Invalid JWT Signature. (%v)"}`, err)
		return
	}
	g.mu.Lock()
	g.fetches++
	tok := fmt.Sprintf("ya29.fake-token-%d", g.fetches)
	g.issued[tok] = true
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":%q,"expires_in":%d,"token_type":"Bearer"}`, tok, g.ExpiresIn)
}

// checkAssertion verifies the JWT bearer grant: RS256 by the account's
// key, issued by its email for the cloud-platform scope, to this token
// endpoint, not expired.
func (g *GoogleTokenServer) checkAssertion(r *http.Request) error {
	if gt := r.PostForm.Get("grant_type"); gt != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		return fmt.Errorf("grant_type %q", gt)
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		return fmt.Errorf("assertion is not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&g.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	var header struct{ Alg, Kid string }
	var claims struct {
		Iss, Scope, Aud string
		Exp, Iat        int64
	}
	for i, v := range []any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return err
		}
	}
	now := time.Now().Unix()
	switch {
	case header.Alg != "RS256" || header.Kid != g.KeyID:
		return fmt.Errorf("header %+v", header)
	case claims.Iss != g.Email:
		return fmt.Errorf("iss %q", claims.Iss)
	case claims.Scope != "https://www.googleapis.com/auth/cloud-platform":
		return fmt.Errorf("scope %q", claims.Scope)
	case claims.Aud != g.URL+"/token":
		return fmt.Errorf("aud %q", claims.Aud)
	case claims.Exp < now || claims.Iat > now+60:
		return fmt.Errorf("exp %d iat %d", claims.Exp, claims.Iat)
	}
	return nil
}
