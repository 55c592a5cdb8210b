package translate

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestGeminiSchema(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		order          bool
		err            string
	}{
		{name: "refused keys go, types in capitals",
			in: `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"x","type":"object","additionalProperties":false,` +
				`"properties":{"n":{"type":"integer","exclusiveMinimum":0,"multipleOf":2,"minimum":1,"maximum":9},"s":{"type":"string","minLength":1,"maxLength":5,"pattern":"^a","examples":["a"]}},` +
				`"patternProperties":{"^x":{}},"propertyNames":{"pattern":"^[a-z]+$"},"not":{"required":["z"]}}`,
			want: `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","minimum":1,"maximum":9},"s":{"type":"STRING","minLength":1,"maxLength":5,"pattern":"^a"}}}`},
		{name: "a type list with null is nullable",
			in:   `{"type":["string","null"],"description":"d","title":"T"}`,
			want: `{"type":"STRING","nullable":true,"description":"d","title":"T"}`},
		{name: "a type list of several types is anyOf",
			in:   `{"type":["string","integer"]}`,
			want: `{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}`},
		{name: "anyOf with null (pydantic's Optional) is nullable",
			in:   `{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}],"default":null,"title":"Tags"}`,
			want: `{"type":"ARRAY","items":{"type":"STRING"},"nullable":true,"default":null,"title":"Tags"}`},
		{name: "oneOf is anyOf",
			in:   `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false},{"type":"boolean"}]}`,
			want: `{"anyOf":[{"type":"OBJECT","properties":{"a":{"type":"STRING"}}},{"type":"BOOLEAN"}]}`},
		{name: "const is a one-value enum, an enum a string's",
			in:   `{"type":"object","properties":{"k":{"const":"circle"},"e":{"enum":["a",null,"b"]},"n":{"type":"integer","enum":[1,2]}}}`,
			want: `{"type":"OBJECT","properties":{"k":{"type":"STRING","enum":["circle"]},"e":{"type":"STRING","enum":["a","b"],"nullable":true},"n":{"type":"INTEGER"}}}`},
		{name: "formats Gemini knows",
			in: `{"type":"object","properties":{"u":{"type":"string","format":"uri"},"t":{"type":"string","format":"date-time"},` +
				`"i":{"type":"integer","format":"int64"},"f":{"type":"number","format":"float"},"b":{"type":"integer","format":"double"}}}`,
			want: `{"type":"OBJECT","properties":{"u":{"type":"STRING"},"t":{"type":"STRING","format":"date-time"},"i":{"type":"INTEGER","format":"int64"},` +
				`"f":{"type":"NUMBER","format":"float"},"b":{"type":"INTEGER"}}}`},
		{name: "$refs are replaced by what they name",
			in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/Point","description":"where"},"b":{"$ref":"#/definitions/Point"},` +
				`"c":{"type":"array","items":{"$ref":"#/$defs/a~1b"}}},"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]},"a/b":{"type":"string"}},` +
				`"definitions":{"Point":{"type":"integer"}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"OBJECT","description":"where","properties":{"x":{"type":"NUMBER"}},"required":["x"]},` +
				`"b":{"type":"INTEGER"},"c":{"type":"ARRAY","items":{"type":"STRING"}}}}`},
		{name: "allOf is merged",
			in: `{"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}],` +
				`"properties":{"c":{"type":"boolean"}},"$defs":{"Base":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"},"c":{"type":"BOOLEAN"}},"required":["a","b"]}`},
		{name: "required names only properties; properties only an object's",
			in:   `{"type":"object","properties":{"a":{"type":"string","properties":{"x":{}},"required":["x"]}},"required":["a","ghost","a"]}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`},
		{name: "an untyped schema with properties is an object",
			in:   `{"properties":{"a":{"type":"string"}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`},
		{name: "a nested free-form object stays an object",
			in:   `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			want: `{"type":"OBJECT","properties":{"env":{"type":"OBJECT"}}}`},
		{name: "anything goes", in: `true`, want: `{}`},
		{name: "the properties' order, with those of an allOf after them", order: true,
			in:   `{"allOf":[{"properties":{"m":{"type":"string"},"b":{"type":"string"}}}],"properties":{"z":{"type":"string"},"a":{"type":"string"}}}`,
			want: `{"type":"OBJECT","properties":{"z":{"type":"STRING"},"a":{"type":"STRING"},"m":{"type":"STRING"},"b":{"type":"STRING"}},"propertyOrdering":["z","a","b","m"]}`},
		{name: "a caller's own order", in: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"propertyOrdering":["b","a","x"]}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}},"propertyOrdering":["b","a"]}`},
		{name: "a recursive $ref", in: `{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}}}`,
			err: `$ref "#/$defs/N" is recursive`},
		{name: "a $ref to nowhere", in: `{"type":"object","properties":{"a":{"$ref":"https://example.com/schema.json"}}}`,
			err: `names no definition`},
		{name: "a $ref that is not a string", in: `{"$ref":7}`, err: `$ref must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := geminiSchema(json.RawMessage(tc.in), tc.order)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, b, tc.want) {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestGeminiSchemaRefChains: a long chain of $refs that is not recursive
// is written out; one whose $refs fan out (each definition naming the next
// twice) is refused rather than written out whole.
func TestGeminiSchemaRefChains(t *testing.T) {
	chain := func(fanOut bool) json.RawMessage {
		var defs []string
		for i := range 20 {
			next := `{"type":"string"}`
			if i < 19 {
				next = `{"$ref":"#/$defs/D` + strconv.Itoa(i+1) + `"}`
			}
			right := `{"type":"string"}`
			if fanOut {
				right = next
			}
			defs = append(defs, `"D`+strconv.Itoa(i)+`":{"type":"object","properties":{"l":`+next+`,"r":`+right+`}}`)
		}
		return json.RawMessage(`{"$ref":"#/$defs/D0","$defs":{` + strings.Join(defs, ",") + `}}`)
	}
	got, err := geminiSchema(chain(false), false)
	if err != nil {
		t.Fatalf("a chain of 20 $refs: %v", err)
	}
	for range 19 {
		got = got["properties"].(map[string]any)["l"].(map[string]any)
	}
	if leaf := got["properties"].(map[string]any)["l"]; !reflect.DeepEqual(leaf, map[string]any{"type": "STRING"}) {
		t.Errorf("the chain's end is %v", leaf)
	}
	if _, err := geminiSchema(chain(true), false); err == nil || !strings.Contains(err.Error(), "more than 256 $refs") {
		t.Fatalf("got %v, want the expansion refused", err)
	}
}

// geminiSchemaKeys are the members of Gemini's Schema.
var geminiSchemaKeys = map[string]bool{"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "properties": true, "required": true, "propertyOrdering": true, "items": true, "anyOf": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "minProperties": true, "maxProperties": true,
	"minimum": true, "maximum": true, "pattern": true, "default": true, "example": true}

// TestGeminiSchemaKeys: every schema in the golden requests (tools'
// parameters, response schemas) holds only Gemini's Schema members.
func TestGeminiSchemaKeys(t *testing.T) {
	outs, err := filepath.Glob("testdata/gemini/*_to_gemini/*.out.json")
	if err != nil || len(outs) == 0 {
		t.Fatalf("no golden requests (%v)", err)
	}
	for _, path := range outs {
		var req geminiRequest
		if err := json.Unmarshal(readTestdata(t, path), &req); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var schemas []json.RawMessage
		for _, tool := range req.Tools {
			for _, d := range tool.FunctionDeclarations {
				schemas = append(schemas, d.Parameters)
			}
		}
		if g := req.GenerationConfig; g != nil {
			schemas = append(schemas, g.ResponseSchema)
		}
		for _, s := range schemas {
			if len(s) > 0 {
				checkSchemaKeys(t, path, s)
			}
		}
	}
}

func checkSchemaKeys(t *testing.T, where string, raw json.RawMessage) {
	t.Helper()
	var node map[string]json.RawMessage
	if err := json.Unmarshal(raw, &node); err != nil {
		t.Fatalf("%s: a schema that is not an object: %s", where, raw)
	}
	for key, v := range node {
		switch {
		case !geminiSchemaKeys[key]:
			t.Errorf("%s: Gemini's Schema has no %q", where, key)
		case key == "items":
			checkSchemaKeys(t, where, v)
		case key == "properties":
			var props map[string]json.RawMessage
			_ = json.Unmarshal(v, &props)
			for _, p := range props {
				checkSchemaKeys(t, where, p)
			}
		case key == "anyOf":
			for _, m := range rawList(v) {
				checkSchemaKeys(t, where, m)
			}
		}
	}
}
