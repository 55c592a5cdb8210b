package handlers

import (
	"bytes"
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

// checkProvider makes the cheapest call that proves both the URL and the
// credentials, through the provider type's own client (the one the proxy
// calls it with): a model list where the type has one on the host it calls
// (openai GET {base}/models, anthropic GET {root}/v1/models, azure GET
// {base}/openai/models?api-version=…, gemini GET {base}/v1beta/models);
// bedrock and vertex list models on another host or not per project, so
// they get a 1-token generation on the provider's first model entry (see
// probeRequest). Nothing of the credentials reaches the result.
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
	ctx, cancel := context.WithTimeout(ctx, providerCheckTimeout)
	defer cancel()
	method, body := http.MethodGet, []byte(nil)
	res.URL = client.ModelsURL()
	if res.URL == "" {
		method = http.MethodPost
		if res.URL, body, err = a.probeRequest(ctx, p, client); err != nil {
			res.Message = err.Error()
			return res
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, res.URL, bytes.NewReader(body))
	if err != nil {
		res.Message = "cannot build the request: " + client.Mask(err.Error())
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	if err := client.Authorize(req, body); err != nil {
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
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10)) // a short or cut body still says enough
	res.Status = resp.StatusCode
	res.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
	res.Message = client.Mask(answerMessage(res.OK, resp.Status, answer))
	if res.OK && method == http.MethodPost {
		res.Message = "a 1-token generation answered"
	}
	a.logger(ctx).Info("provider test connection", "provider", p.Name, "status", res.Status, "latency_ms", res.LatencyMS)
	return res
}

// probeRequest is a 1-token generation on the provider's first model
// entry, in its protocol: Converse for bedrock, generateContent (or
// rawPredict for a Claude model) for vertex.
func (a *App) probeRequest(ctx context.Context, p *models.Provider, client *providers.Client) (string, []byte, error) {
	ds, err := a.store.ListDeployments(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("cannot list the model entries: %w", err)
	}
	model := ""
	for _, d := range ds {
		if d.ProviderID == p.ID && !strings.Contains(d.UpstreamModel, "*") {
			model = d.UpstreamModel
			break
		}
	}
	if model == "" {
		return "", nil, errors.New("add a model entry for this provider first: " + p.APIType +
			" has no model list on the host it calls, so the test is a 1-token request to one of its models")
	}
	var body string
	switch client.Protocol(model) {
	case providers.ProtocolConverse:
		body = `{"messages":[{"role":"user","content":[{"text":"ping"}]}],"inferenceConfig":{"maxTokens":1}}`
	case providers.ProtocolAnthropic:
		body = `{"anthropic_version":"vertex-2023-10-16","max_tokens":1,"messages":[{"role":"user","content":"ping"}]}`
	default:
		body = `{"contents":[{"role":"user","parts":[{"text":"ping"}]}],"generationConfig":{"maxOutputTokens":1}}`
	}
	return client.CallURL(model, false), []byte(body), nil
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
		Data   []json.RawMessage `json:"data"`
		Models []json.RawMessage `json:"models"` // Gemini's list
		Error  json.RawMessage   `json:"error"`
		Msg    string            `json:"message"`
	}
	jsonErr := json.Unmarshal(body, &parsed)
	if ok {
		if jsonErr == nil && parsed.Data != nil {
			return plural(len(parsed.Data), "model", "models") + " listed"
		}
		if jsonErr == nil && parsed.Models != nil {
			return plural(len(parsed.Models), "model", "models") + " listed"
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
