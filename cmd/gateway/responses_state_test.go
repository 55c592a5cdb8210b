package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"gateway/proxy/upstreamtest"
)

// TestResponsesStateThroughTheGateway: the running gateway, set up through
// its API, keeps a Responses conversation that the official client
// continues three turns deep with store left on, by previous_response_id
// and by item_reference, on an openai-type and an anthropic-type member;
// each turn the member is given the whole conversation.
func TestResponsesStateThroughTheGateway(t *testing.T) {
	g, _ := startGateway(t, testConfig("", t.TempDir()))
	conv := upstreamtest.NewConversation(t)
	oa := mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "conv-openai", "api_type": "openai", "base_url": conv.URL + "/v1", "api_key": testProviderKey}, http.StatusCreated)
	an := mustAPI(t, g, "POST", "/api/providers", map[string]any{"name": "conv-anthropic", "api_type": "anthropic", "base_url": conv.URL, "api_key": testProviderKey}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "chatty", "provider_id": oa["id"], "upstream_model": "m"}, http.StatusCreated)
	mustAPI(t, g, "POST", "/api/models", map[string]any{"public_name": "claudy", "provider_id": an["id"], "upstream_model": "m"}, http.StatusCreated)
	key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "sdk"}, http.StatusCreated)["key"].(string)
	client := sdk(g, key)
	ctx := context.Background()
	asked := []string{"My name is Ada.", "What is my name?", "And backwards?"}
	user := func(text string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
	}
	for _, pool := range []string{"chatty", "claudy"} {
		for _, by := range []string{"previous_response_id", "item_reference"} {
			var answers []*responses.Response
			for turn := range asked {
				p := responses.ResponseNewParams{Model: pool}
				switch {
				case turn == 0:
					p.Input = responses.ResponseNewParamsInputUnion{OfString: param.NewOpt(asked[0])}
				case by == "previous_response_id":
					p.PreviousResponseID = param.NewOpt(answers[turn-1].ID)
					p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: []responses.ResponseInputItemUnionParam{user(asked[turn])}}
				default:
					var items []responses.ResponseInputItemUnionParam
					for i := range turn {
						items = append(items, user(asked[i]), responses.ResponseInputItemUnionParam{
							OfItemReference: &responses.ResponseInputItemItemReferenceParam{ID: answers[i].Output[0].ID}})
					}
					p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: append(items, user(asked[turn]))}
				}
				r, err := client.Responses.New(ctx, p)
				if err != nil {
					t.Fatalf("%s by %s, turn %d: %v", pool, by, turn+1, err)
				}
				answers = append(answers, r)
				var want []string
				for i := 0; i <= turn; i++ {
					want = append(want, "user: "+asked[i])
					if i < turn {
						want = append(want, "assistant: "+answers[i].OutputText())
					}
				}
				if got := conv.Last().Turns; strings.Join(got, " | ") != strings.Join(want, " | ") {
					t.Fatalf("%s by %s, turn %d: the member was given\n  %s\nwant\n  %s", pool, by, turn+1,
						strings.Join(got, " | "), strings.Join(want, " | "))
				}
			}
			t.Logf("%s by %s: three turns, the last answered %q", pool, by, answers[2].OutputText())
			if got := fmt.Sprint(conv.Last().Store); got == "true" {
				t.Errorf("the member was asked to store the answer itself")
			}
		}
	}
}
