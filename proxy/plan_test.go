package proxy

import (
	"errors"
	"fmt"
	"testing"

	"gateway/proxy/translate"
)

// TestPlanStreams: a call's stream passes through between one protocol and
// itself, is translated between two, and is refused, before anything is
// sent (streamCall asks first), for a direction no passthrough or
// translation covers.
func TestPlanStreams(t *testing.T) {
	for _, tc := range []struct {
		name             string
		caller, upstream protocol
		want             string // the adapter's type; "" for a refusal
	}{
		{"openai passes through", protoOpenAI, protoOpenAI, "*proxy.openAIPassthrough"},
		{"anthropic passes through", protoAnthropic, protoAnthropic, "*proxy.anthropicPassthrough"},
		{"responses passes through", protoResponses, protoResponses, "*proxy.responsesPassthrough"},
		{"gemini to anthropic is translated", protoAnthropic, protoGemini, "*proxy.translatingStream"},
		{"a gemini caller has no passthrough", protoGemini, protoGemini, ""},
		{"no stream writer for a gemini caller", protoGemini, protoOpenAI, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &callPlan{caller: tc.caller, upstream: tc.upstream}
			ad, err := c.stream(10)
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("got %T, want a refusal", ad)
			case tc.want != "" && err != nil:
				t.Errorf("got %v, want %s", err, tc.want)
			case tc.want != "" && typeName(ad) != tc.want:
				t.Errorf("got %T, want %s", ad, tc.want)
			}
			if tc.caller != tc.upstream && tc.want == "" && !errors.Is(err, translate.ErrUnsupported) {
				t.Errorf("got %v, want translate.ErrUnsupported", err)
			}
		})
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
