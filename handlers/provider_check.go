package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"gateway/models"
	"gateway/views"
)

// providerCheckTimeout bounds a test connection: it lists models, which any
// live provider answers at once.
const providerCheckTimeout = 10 * time.Second

// checkProvider lists the provider's models with its key, the cheapest call
// that proves both the URL and the key: GET {base}/models for openai-type
// providers, GET {root}/v1/models with x-api-key for anthropic-type ones.
// Nothing of the key reaches the result.
func (a *App) checkProvider(ctx context.Context, p *models.Provider) views.ProviderCheck {
	res := views.ProviderCheck{ProviderID: p.ID}
	target, err := providerModelsURL(p.APIType, p.BaseURL)
	if err != nil {
		res.Message = err.Error()
		return res
	}
	res.URL = target
	key, err := a.store.ProviderAPIKey(p)
	if err != nil {
		a.logger(ctx).Error("decrypt provider key for a test connection", "provider", p.Name, "err", err)
		res.Message = "the stored key cannot be decrypted (was GATEWAY_SECRET changed?): save the key again"
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, providerCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		res.Message = "cannot build the request: " + maskSecrets(err.Error(), key)
		return res
	}
	setProviderAuth(req, p.APIType, key)
	start := time.Now()
	resp, err := providerCheckClient.Do(req)
	res.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		res.Message = maskSecrets(transportMessage(err), key)
		return res
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10)) // a short or cut body still says enough
	res.Status = resp.StatusCode
	res.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
	res.Message = maskSecrets(answerMessage(res.OK, resp.Status, body), key)
	a.logger(ctx).Info("provider test connection", "provider", p.Name, "status", res.Status, "latency_ms", res.LatencyMS)
	return res
}

// providerCheckClient never follows a redirect: it would carry the key,
// which x-api-key does not lose across hosts as Authorization does, to
// wherever the answer points.
var providerCheckClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// providerModelsURL applies the proxy's base-URL rule (proxy/provider.go):
// an openai-type base carries the version (none → /v1), an anthropic-type
// base is the root (a redundant /v1 is dropped); a trailing slash is fine.
func providerModelsURL(apiType, base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("the base URL %q is not an http(s) URL", base)
	}
	path := strings.TrimRight(u.Path, "/")
	switch apiType {
	case models.APITypeOpenAI:
		if path == "" {
			path = "/v1"
		}
		path += "/models"
	case models.APITypeAnthropic:
		path = strings.TrimSuffix(path, "/v1") + "/v1/models"
	default:
		return "", fmt.Errorf("unknown api type %q", apiType)
	}
	u.Path, u.RawPath, u.Fragment = path, "", ""
	return u.String(), nil
}

func setProviderAuth(req *http.Request, apiType, key string) {
	if apiType == models.APITypeAnthropic {
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
		return
	}
	req.Header.Set("Authorization", "Bearer "+key)
}

// transportMessage says why no answer came, without Go's wrapping.
func transportMessage(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %d s", int(providerCheckTimeout.Seconds()))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "no answer: " + err.Error()
}

// answerMessage sums up the answer: how many models a success listed, the
// upstream's own error message otherwise.
func answerMessage(ok bool, status string, body []byte) string {
	var parsed struct {
		Data  []json.RawMessage `json:"data"`
		Error json.RawMessage   `json:"error"`
		Msg   string            `json:"message"`
	}
	jsonErr := json.Unmarshal(body, &parsed)
	if ok {
		if jsonErr == nil && parsed.Data != nil {
			return plural(len(parsed.Data), "model", "models") + " listed"
		}
		return ""
	}
	if jsonErr == nil {
		var detail struct {
			Message string `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(parsed.Error, &detail) == nil && detail.Message != "":
			return shorten(detail.Message, 300)
		case json.Unmarshal(parsed.Error, &text) == nil && text != "":
			return shorten(text, 300)
		case parsed.Msg != "":
			return shorten(parsed.Msg, 300)
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	if text == "" {
		return status
	}
	return shorten(text, 200)
}

// secretLike matches what looks like an API key in an upstream's message:
// OpenAI and Anthropic keys start with sk- (and some messages echo them,
// partly starred out).
var secretLike = regexp.MustCompile(`sk-[A-Za-z0-9_\-*]+`)

// maskSecrets hides anything that looks like a key, and the provider's key
// whatever it looks like.
func maskSecrets(msg, key string) string {
	msg = secretLike.ReplaceAllString(msg, "sk-…")
	if len(key) >= 4 {
		msg = strings.ReplaceAll(msg, key, "…")
	}
	return msg
}
