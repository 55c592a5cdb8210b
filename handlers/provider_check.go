package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"gateway/models"
	"gateway/proxy/providers"
	"gateway/views"
)

// providerCheckTimeout bounds a test connection: it lists models, which any
// live provider answers at once.
const providerCheckTimeout = 10 * time.Second

// checkProvider lists the provider's models with its key, the cheapest call
// that proves both the URL and the key, through the provider type's own
// client (the one the proxy calls it with): GET {base}/models for
// openai-type providers, GET {root}/v1/models with x-api-key for
// anthropic-type ones. Nothing of the key reaches the result.
func (a *App) checkProvider(ctx context.Context, p *models.Provider) views.ProviderCheck {
	res := views.ProviderCheck{ProviderID: p.ID}
	secrets, keyErr := a.store.ProviderSecrets(p)
	if keyErr != nil {
		a.logger(ctx).Error("decrypt provider key for a test connection", "provider", p.Name, "err", keyErr)
		res.Message = "the stored key cannot be decrypted (was GATEWAY_SECRET changed?): save the key again"
		return res
	}
	client, err := providers.New(p, secrets, providers.NewTransport())
	if err != nil {
		res.Message = err.Error()
		return res
	}
	defer client.Transport().CloseIdleConnections()
	res.URL = client.ModelsURL()
	ctx, cancel := context.WithTimeout(ctx, providerCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, res.URL, nil)
	if err != nil {
		res.Message = "cannot build the request: " + client.Mask(err.Error())
		return res
	}
	if err := client.Authorize(req, nil); err != nil {
		res.Message = client.Mask(err.Error())
		return res
	}
	start := time.Now()
	resp, err := client.RoundTrip(req)
	res.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		res.Message = client.Mask(transportMessage(err))
		return res
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10)) // a short or cut body still says enough
	res.Status = resp.StatusCode
	res.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
	res.Message = client.Mask(answerMessage(res.OK, resp.Status, body))
	a.logger(ctx).Info("provider test connection", "provider", p.Name, "status", res.Status, "latency_ms", res.LatencyMS)
	return res
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
