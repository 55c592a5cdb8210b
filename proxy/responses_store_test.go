package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"gateway/models"
	"gateway/proxy"
	"gateway/proxy/upstreamtest"
)

// statefulEnv has a pool "chatty" on an openai-type member and "claudy" on
// an anthropic-type one, both translated for Responses callers.
func statefulEnv(t *testing.T) (*env, *upstreamtest.Conversation) {
	e := newEnv(t, proxy.Options{})
	conv := upstreamtest.NewConversation(t)
	oa := e.addProvider("conv-openai", models.APITypeOpenAI, conv.URL+"/v1")
	an := e.addProvider("conv-anthropic", models.APITypeAnthropic, conv.URL)
	e.addDeployment(models.Deployment{PublicName: "chatty", UpstreamModel: "m", ProviderID: oa})
	e.addDeployment(models.Deployment{PublicName: "claudy", UpstreamModel: "m", ProviderID: an})
	e.reload()
	return e, conv
}

func userInput(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

// TestResponsesStateThreeTurns: the official Responses client, with store
// left on as the AI SDK leaves it, continues a conversation three turns deep
// by previous_response_id and by item_reference, on a chat member and on a
// messages member: each turn the member is given the whole conversation.
func TestResponsesStateThreeTurns(t *testing.T) {
	for _, pool := range []string{"chatty", "claudy"} {
		for _, by := range []string{"previous_response_id", "item_reference"} {
			t.Run(pool+" by "+by, func(t *testing.T) {
				e, conv := statefulEnv(t)
				client := e.client()
				ctx := context.Background()
				first, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: pool,
					Instructions: param.NewOpt("Be terse."),
					Input:        responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("My name is Ada.")}})
				if err != nil {
					t.Fatal(err)
				}
				answers := []*responses.Response{first}
				asked := []string{"My name is Ada.", "What is my name?", "And my name backwards?"}
				for turn := 1; turn < 3; turn++ {
					p := responses.ResponseNewParams{Model: pool}
					if by == "previous_response_id" {
						p.PreviousResponseID = param.NewOpt(answers[turn-1].ID)
						p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: []responses.ResponseInputItemUnionParam{userInput(asked[turn])}}
					} else {
						// What the AI SDK sends: the user's turns in full, the
						// answers by reference.
						var items []responses.ResponseInputItemUnionParam
						for i := 0; i < turn; i++ {
							items = append(items, userInput(asked[i]),
								responses.ResponseInputItemUnionParam{OfItemReference: &responses.ResponseInputItemItemReferenceParam{ID: answers[i].Output[0].ID}})
						}
						p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: append(items, userInput(asked[turn]))}
					}
					var r *responses.Response
					var err error
					if turn == 1 {
						// The second turn streams: its answer is kept from
						// response.completed.
						r, err = streamResponse(client, p)
					} else {
						r, err = client.Responses.New(ctx, p)
					}
					if err != nil {
						var apiErr *openai.Error
						errors.As(err, &apiErr)
						t.Fatalf("turn %d: %v: %s", turn+1, err, apiErr.RawJSON())
					}
					answers = append(answers, r)
					var want []string
					if pool == "chatty" && turn == 0 {
						want = append(want, "system: Be terse.")
					}
					for i := 0; i <= turn; i++ {
						want = append(want, "user: "+asked[i])
						if i < turn {
							want = append(want, "assistant: "+answers[i].OutputText())
						}
					}
					if got := conv.Last().Turns; strings.Join(got, " | ") != strings.Join(want, " | ") {
						t.Fatalf("turn %d: the member was given\n  %s\nwant\n  %s", turn+1, strings.Join(got, " | "), strings.Join(want, " | "))
					}
				}
				if got := answers[2].OutputText(); got != "reply 3" {
					t.Errorf("third answer %q", got)
				}
				if got := conv.Last().Store; got == true {
					t.Errorf("the member was asked to store the answer itself (store: %v); the gateway keeps it", got)
				}
			})
		}
	}
}

// TestResponsesStoredReadAndDeleted: a stored response can be read again,
// with its input items, only by its own key; deleted, it is gone for GET
// and for previous_response_id; one sent with store: false is not kept;
// another gateway on the same database finds it there.
func TestResponsesStoredReadAndDeleted(t *testing.T) {
	e, conv := statefulEnv(t)
	client := e.client()
	ctx := context.Background()
	first, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "claudy",
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("My name is Ada.")}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "claudy", PreviousResponseID: param.NewOpt(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("What is my name?")}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := client.Responses.Get(ctx, second.ID, responses.ResponseGetParams{})
	if err != nil || got.ID != second.ID || got.OutputText() != second.OutputText() {
		t.Fatalf("GET: %+v, %v; want the second response", got, err)
	}
	page, err := client.Responses.InputItems.List(ctx, second.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range page.Data {
		if it.ID == "" {
			t.Errorf("an input item without an id: %+v", it)
		}
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal([]byte(it.RawJSON()), &m)
		texts = append(texts, m.Role+": "+upstreamtest.PlainText(m.Content))
	}
	if want := "user: My name is Ada. | assistant: " + first.OutputText() + " | user: What is my name?"; strings.Join(texts, " | ") != want {
		t.Errorf("input items %q, want %q", strings.Join(texts, " | "), want)
	}

	// Another key sees none of it.
	other := e.client(option.WithAPIKey(e.addKey()))
	e.reload()
	var apiErr *openai.Error
	if _, err := other.Responses.Get(ctx, second.ID, responses.ResponseGetParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("another key's GET: %v, want 404", err)
	}
	calls := conv.Count()
	if _, err := other.Responses.New(ctx, responses.ResponseNewParams{Model: "claudy", PreviousResponseID: param.NewOpt(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Who am I?")}}); !errors.As(err, &apiErr) ||
		apiErr.StatusCode != http.StatusNotFound || !strings.Contains(apiErr.Message, first.ID) {
		t.Errorf("another key continuing the conversation: %v, want 404 naming the id", err)
	}
	if conv.Count() != calls {
		t.Error("a request continuing an unknown response reached the member")
	}

	// A second gateway on the same database reads what the first wrote.
	waitFor(t, "the responses to be written", func() bool {
		_, err := e.store.GetResponse(ctx, keyID(t, e), second.ID)
		return err == nil
	})
	g2 := proxy.New(e.store, proxy.Options{})
	t.Cleanup(func() { g2.Close(context.Background()) })
	if err := g2.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(g2)
	t.Cleanup(srv2.Close)
	_, err = e.client(option.WithBaseURL(srv2.URL+"/v1/")).Responses.New(ctx, responses.ResponseNewParams{Model: "chatty",
		PreviousResponseID: param.NewOpt(second.ID), Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Thanks.")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(conv.Last().Turns, " | "); !strings.HasPrefix(got, "user: My name is Ada. | assistant: "+first.OutputText()) {
		t.Errorf("the other gateway gave the member %q: not the conversation", got)
	}

	// Deleted: gone.
	if err := client.Responses.Delete(ctx, second.ID); err != nil {
		t.Fatalf("DELETE: %v", err)
	}
	if _, err := client.Responses.Get(ctx, second.ID, responses.ResponseGetParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("GET after DELETE: %v, want 404", err)
	}
	if _, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "claudy", PreviousResponseID: param.NewOpt(second.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Still there?")}}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("continuing a deleted response: %v, want 404", err)
	}

	// store: false keeps nothing.
	unstored, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "chatty", Store: param.NewOpt(false),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Forget this.")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Responses.Get(ctx, unstored.ID, responses.ResponseGetParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a response sent with store: false: %v, want 404", err)
	}
}

func keyID(t *testing.T, e *env) int64 {
	t.Helper()
	keys, err := e.store.ListKeys(context.Background())
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys: %v", err)
	}
	return keys[0].ID
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
	}
}

func streamResponse(client *openai.Client, p responses.ResponseNewParams) (*responses.Response, error) {
	s := client.Responses.NewStreaming(context.Background(), p)
	var final *responses.Response
	for s.Next() {
		if ev := s.Current(); ev.Type == "response.completed" {
			r := ev.AsResponseCompleted().Response
			final = &r
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if final == nil {
		return nil, errors.New("the stream had no response.completed")
	}
	return final, nil
}

// TestResponsesStateNativeMember: a member that serves the Responses API
// itself gets the whole conversation, store: false and no
// previous_response_id: the gateway holds the state, so the next turn could
// go to any member.
func TestResponsesStateNativeMember(t *testing.T) {
	e, _ := newProtocolEnv(t)
	pid := e.addResponsesProvider()
	e.addDeployment(models.Deployment{PublicName: "native", UpstreamModel: "gpt-native", ProviderID: pid})
	e.reload()
	e.up.setRespond(fakeResponsesAPI)
	client := e.client()
	ctx := context.Background()
	first, err := streamResponse(client, responses.ResponseNewParams{Model: "native",
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("My name is Ada.")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "native", PreviousResponseID: param.NewOpt(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("What is my name?")}}); err != nil {
		t.Fatal(err)
	}
	body := e.up.last(t).Body
	if _, ok := body["previous_response_id"]; ok || body["store"] != false {
		t.Fatalf("the member was asked with previous_response_id %v, store %v", body["previous_response_id"], body["store"])
	}
	input, _ := body["input"].([]any)
	var roles []string
	for _, it := range input {
		m := it.(map[string]any)
		if _, hasID := m["id"]; hasID {
			t.Errorf("an item went to the member with its id, which a member asked with store: false does not know: %v", m)
		}
		roles = append(roles, fmt.Sprint(m["role"]))
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Fatalf("the member was given %v, want the first question, its answer and the second", input)
	}
}
