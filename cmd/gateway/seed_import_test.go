package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"gateway/models/dbtest"
)

// seedUpstreams are the fakes behind testdata/litellm/seed.yaml.
type seedUpstreams struct {
	deepseek  [4]*vendorFake // weights 0, 5, 3, 2
	anthropic *vendorFake
	gemini    *vendorFake
	bedrock   *vendorFake
	azure     *vendorFake
}

func startSeedUpstreams(t *testing.T) *seedUpstreams {
	u := &seedUpstreams{}
	for i, name := range []string{"deepseek", "aliyun-sg", "aliyun-bj", "openrouter"} {
		u.deepseek[i] = newVendorFake(t, name, "openai", fmt.Sprintf("sk-%s-key-000000000%d", name, i))
	}
	u.anthropic = newVendorFake(t, "anthropic", "anthropic", "sk-ant-seed-key-0000000001")
	u.gemini = newVendorFake(t, "gemini", "gemini", "gemini-seed-key-000000002")
	u.bedrock = newVendorFake(t, "bedrock", "bedrock", "")
	u.azure = newVendorFake(t, "azure", "azure", "azure-seed-key-0000000003")
	return u
}

// env is what seed.yaml's os.environ/ references resolve to: the fakes.
func (u *seedUpstreams) env() map[string]string {
	env := map[string]string{
		"ANTHROPIC_API_BASE": u.anthropic.URL, "ANTHROPIC_API_KEY": u.anthropic.key,
		"GEMINI_API_BASE": u.gemini.URL, "GEMINI_API_KEY": u.gemini.key,
		"BEDROCK_RUNTIME_ENDPOINT": u.bedrock.URL, "AWS_ACCESS_KEY_ID": seedBedrock.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY": seedBedrock.SecretAccessKey, "AWS_SESSION_TOKEN": seedBedrock.SessionToken,
		"AZURE_API_BASE": u.azure.URL, "AZURE_API_KEY": u.azure.key,
	}
	for i, prefix := range []string{"DEEPSEEK", "ALIYUN_SG", "ALIYUN_BJ", "OPENROUTER"} {
		env[prefix+"_API_BASE"] = u.deepseek[i].URL + "/v1"
		env[prefix+"_API_KEY"] = u.deepseek[i].key
	}
	return env
}

const seedPool = "deepseek-v4.1-flash"

// TestImportSeedConfigServes: the importer turns a realistic LiteLLM config
// (pools of several shapes, a wildcard, the cloud
// types, router settings, fallbacks) into a gateway that serves it, called
// through the official SDKs with a virtual key made through the API.
func TestImportSeedConfigServes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dsn, dataDir string) {
		g, _ := startGateway(t, testConfig(dsn, dataDir))
		up := startSeedUpstreams(t)
		env := up.env()
		env["GATEWAY_ADMIN_URL"] = "http://" + g.AdminAddr()
		env["GATEWAY_MASTER_KEY"] = testMasterKey
		const file = "testdata/litellm/seed.yaml"

		if !t.Run("import", func(t *testing.T) {
			r := cli(env, "import", "litellm", file)
			r.wantOK(t, "Created 8 providers and 8 model entries; set 5 pool settings and 3 fallback lists.")
			// Left out, and said: the router's cooldown_time (retry-after
			// rules). Nothing else; the strategy and limits are applied.
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "  created") && !strings.HasPrefix(line, "  set") &&
					!strings.HasPrefix(line, "  router_settings.cooldown_time: 30 s ") {
					t.Errorf("not imported: %s", line)
				}
			}
			if strings.Contains(r.stdout, "Not applied") {
				t.Errorf("the report says something was not applied:\n%s", r.stdout)
			}
			s := readState(t, g)
			for _, p := range s.pools {
				if p["routing_strategy"] != "simple-shuffle" || p["num_retries"] != 2.0 {
					t.Errorf("pool %v, want router_settings' simple-shuffle and 2 retries", p)
				}
			}
			for _, e := range s.entries {
				want := any(nil)
				if e["public_name"] == "gemini/gemini-2.5-flash" {
					want = 1000.0
				}
				if got, ok := e["rpm_limit"]; !ok || got != want || e["priority"] != 0.0 {
					t.Errorf("entry %v %v: rpm_limit %v priority %v, want %v and 0", e["public_name"], e["upstream_model"], got, e["priority"], want)
				}
			}
		}) {
			return
		}
		t.Run("second import creates nothing", func(t *testing.T) {
			before := readState(t, g)
			cli(env, "import", "litellm", file).wantOK(t, "Nothing new: the gateway already has everything this file describes.")
			if after := readState(t, g); after.String() != before.String() {
				t.Errorf("the second run changed the gateway:\n%s\nwas\n%s", after, before)
			}
		})

		key := mustAPI(t, g, "POST", "/api/keys", map[string]any{"name": "seed"}, http.StatusCreated)["key"].(string)
		s := seedCallers{t: t, chat: sdk(g, key), messages: anthropic.NewClient(aoption.WithBaseURL("http://"+g.ProxyAddr()),
			aoption.WithAPIKey(key), aoption.WithMaxRetries(0), aoption.WithRequestTimeout(20*time.Second))}

		t.Run("deepseek pool shares follow 0/5/3/2", func(t *testing.T) {
			const n = 400
			for range n {
				s.t = t
				s.ask(seedPool, "chat", false)
			}
			// Binomial: one standard deviation is at most 0.025 at n = 400;
			// 0.1 is four of them, never flaky, still tells 5/3/2 apart.
			want := []float64{0, 0.5, 0.3, 0.2}
			for i, f := range up.deepseek {
				got := float64(len(f.calls())) / n
				if i == 0 && got != 0 {
					t.Errorf("the weight-0 member got %.3f of the calls while the others are healthy", got)
				}
				if math.Abs(got-want[i]) > 0.1 {
					t.Errorf("%s: share %.3f, want %.1f ± 0.1", f.name, got, want[i])
				}
			}
		})

		t.Run("anthropic wildcard", func(t *testing.T) {
			s.t = t
			for _, caller := range []string{"messages", "chat"} {
				if got := s.ask("anthropic/claude-x", caller, caller == "chat"); got != up.anthropic.reply() {
					t.Errorf("%s: %q", caller, got)
				}
			}
			if got := up.anthropic.calls(); fmt.Sprint(got) != "[claude-x claude-x]" {
				t.Errorf("the Anthropic fake was asked for %v, want claude-x twice", got)
			}
		})

		for _, c := range []struct {
			public string
			fake   *vendorFake
			model  string
		}{
			{"gemini/gemini-2.5-flash", up.gemini, "gemini-2.5-flash"},
			{"claude-sonnet-bedrock", up.bedrock, seedBedrockModel},
			{"gpt-4o-azure", up.azure, "gpt-4o-prod"},
		} {
			t.Run(c.public+" from both protocols", func(t *testing.T) {
				s.t = t
				for _, caller := range []string{"chat", "messages"} {
					for _, stream := range []bool{false, true} {
						if got := s.ask(c.public, caller, stream); got != c.fake.reply() {
							t.Errorf("%s stream=%v: %q, want %q", caller, stream, got, c.fake.reply())
						}
					}
				}
				for _, m := range c.fake.calls() {
					if m != c.model {
						t.Errorf("the %s fake was asked for %q, want %q", c.fake.name, m, c.model)
					}
				}
			})
		}

		t.Run("a 429 with retry-after cools one member down", func(t *testing.T) {
			s.t = t
			limited := up.deepseek[1] // weight 5
			limited.setFailure(rateLimited("3600"))
			for range 40 {
				if got := s.ask(seedPool, "chat", false); !strings.HasPrefix(got, "hello from ") {
					t.Fatalf("answer %q", got)
				}
			}
			if n := len(limited.calls()); n != 1 {
				t.Errorf("the rate-limited member was called %d times, want once", n)
			}
			if n := len(up.deepseek[0].calls()); n != 0 {
				t.Errorf("the weight-0 reserve was called %d times while weighted members were healthy", n)
			}
			if n := len(up.deepseek[2].calls()) + len(up.deepseek[3].calls()); n != 40 {
				t.Errorf("the healthy members served %d of 40", n)
			}
			m := seedMember(t, g, 5)
			until, _ := time.Parse(time.RFC3339, m.CooldownUntil)
			if !m.CoolingDown || time.Until(until) < 3500*time.Second {
				t.Errorf("the limited member is not cooling down for its retry-after (3600 s): %+v", m)
			}
		})

		t.Run("general fallback when every member fails", func(t *testing.T) {
			s.t = t
			for _, f := range up.deepseek {
				f.setFailure(serverError)
			}
			var resp *http.Response
			c, err := s.chat.Chat.Completions.New(context.Background(), chatTo(seedPool), option.WithResponseInto(&resp))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Choices[0].Message.Content; got != up.gemini.reply() || resp.Header.Get("X-Gateway-Fallback") != "gemini/gemini-2.5-flash" {
				t.Errorf("answer %q, fallback %q; want gemini's through the general fallback", got, resp.Header.Get("X-Gateway-Fallback"))
			}
			if n := len(up.deepseek[2].calls()) + len(up.deepseek[3].calls()); n != 2 {
				t.Errorf("the pool's healthy-until-now members were tried %d times, want once each", n)
			}
		})
	})
}

// seedCallers asks the gateway through both official SDKs.
type seedCallers struct {
	t        *testing.T
	chat     openai.Client
	messages anthropic.Client
}

func chatTo(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("say hello")}}
}

// ask sends one request as a Chat Completions or a Messages caller and
// returns the answer's text.
func (s seedCallers) ask(model, caller string, stream bool) string {
	s.t.Helper()
	ctx := context.Background()
	if caller == "chat" {
		if !stream {
			c, err := s.chat.Chat.Completions.New(ctx, chatTo(model))
			if err != nil {
				s.t.Fatalf("%s: %v", model, err)
			}
			return c.Choices[0].Message.Content
		}
		st := s.chat.Chat.Completions.NewStreaming(ctx, chatTo(model))
		acc := openai.ChatCompletionAccumulator{}
		for st.Next() {
			acc.AddChunk(st.Current())
		}
		if err := st.Err(); err != nil || len(acc.Choices) == 0 {
			s.t.Fatalf("%s stream: %v %+v", model, err, acc)
		}
		return acc.Choices[0].Message.Content
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 64,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("say hello"))}}
	var m anthropic.Message
	if !stream {
		got, err := s.messages.Messages.New(ctx, params)
		if err != nil {
			s.t.Fatalf("%s: %v", model, err)
		}
		m = *got
	} else {
		st := s.messages.Messages.NewStreaming(ctx, params)
		for st.Next() {
			if err := m.Accumulate(st.Current()); err != nil {
				s.t.Fatal(err)
			}
		}
		if err := st.Err(); err != nil {
			s.t.Fatalf("%s stream: %v", model, err)
		}
	}
	var text strings.Builder
	for _, b := range m.Content {
		text.WriteString(b.Text)
	}
	return text.String()
}

// seedMember is the DeepSeek pool's member of that weight, from the pool status.
func seedMember(t *testing.T, g *Gateway, weight float64) memberView {
	t.Helper()
	status, body := api(t, g, "GET", "/api/pools/"+seedPool+"/status", nil)
	var v struct {
		Members []struct {
			memberView
			Weight *float64 `json:"weight"`
		} `json:"members"`
	}
	if err := json.Unmarshal(body, &v); status != http.StatusOK || err != nil {
		t.Fatalf("pool status: %d %s", status, body)
	}
	for _, m := range v.Members {
		if m.Weight != nil && *m.Weight == weight {
			return m.memberView
		}
	}
	t.Fatalf("no member of weight %v: %s", weight, body)
	return memberView{}
}
