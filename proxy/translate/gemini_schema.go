package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// geminiSchema writes a JSON Schema (a tool's parameters, a response
// format's schema) as Gemini's Schema, "a select subset of an OpenAPI 3.0
// schema object", which answers 400 "Unknown name" for any other key.
//
// Kept: type (in Gemini's capitals), format, title, description, nullable,
// enum, properties, required, propertyOrdering, items, anyOf, minItems,
// maxItems, minLength, maxLength, minProperties, maxProperties, minimum,
// maximum, pattern, default and example: the fields of Schema in Google's
// own SDKs and the API reference. Dropped, as Gemini refuses them:
// $schema, $id, $comment, additionalProperties, patternProperties,
// propertyNames, unevaluatedProperties, dependentRequired, not, if/then/else,
// exclusiveMinimum, exclusiveMaximum, multipleOf, uniqueItems, examples,
// contentEncoding, readOnly, writeOnly, deprecated and any other key. Some
// are rewritten rather than dropped: a local $ref ("#/$defs/…",
// "#/definitions/…") is replaced by what it names (a recursive one is
// refused), allOf is merged into its schema, oneOf becomes anyOf, const a
// one-value enum, a type list or a null type nullable. Gemini's narrower
// rules hold too: format only float and double for numbers, int32 and int64
// for integers, enum and date-time for strings; enum only of strings (an
// enum of numbers is dropped, the type stays); properties and required only
// on objects, required only naming its properties.
//
// order adds propertyOrdering, the caller's order of the properties, which
// Gemini otherwise replaces by the alphabet: a response format wants it,
// for the answer's keys come out in that order.
func geminiSchema(raw json.RawMessage, order bool) (map[string]any, error) {
	w := schemaWriter{order: order}
	var root struct {
		Defs        map[string]json.RawMessage `json:"$defs"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if json.Unmarshal(raw, &root) == nil {
		w.defs, w.definitions = root.Defs, root.Definitions
	}
	return w.node(raw)
}

// maxRefs is how many $refs a schema may expand: one of many shared
// definitions could otherwise grow without bound when written out.
const maxRefs = 256

type schemaWriter struct {
	defs, definitions map[string]json.RawMessage
	order             bool
	refs              int      // $refs expanded so far
	path              []string // the $refs being expanded, outermost first
}

// node writes one schema.
func (w *schemaWriter) node(raw json.RawMessage) (map[string]any, error) {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return map[string]any{}, nil // true, or no schema at all: anything goes
	}
	out := map[string]any{}
	if ref, ok := in["$ref"]; ok {
		target, err := w.ref(ref)
		if err != nil {
			return nil, err
		}
		out = target
	}
	for _, member := range rawList(in["allOf"]) {
		m, err := w.node(member)
		if err != nil {
			return nil, err
		}
		mergeSchema(out, m)
	}
	if err := w.fields(out, in); err != nil {
		return nil, err
	}
	tidySchema(out)
	return out, nil
}

// ref gives the schema a local $ref names. A $ref met again inside what
// it names is recursive, which Gemini's Schema cannot hold.
func (w *schemaWriter) ref(raw json.RawMessage) (map[string]any, error) {
	var ref string
	if json.Unmarshal(raw, &ref) != nil {
		return nil, errors.New("$ref must be a string")
	}
	w.refs++
	switch {
	case slices.Contains(w.path, ref):
		return nil, fmt.Errorf("$ref %q is recursive, which Gemini's schemas cannot express", ref)
	case w.refs > maxRefs:
		return nil, fmt.Errorf("more than %d $refs to expand", maxRefs)
	}
	var target json.RawMessage
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		target = w.defs[unescapePointer(name)]
	} else if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		target = w.definitions[unescapePointer(name)]
	}
	if target == nil {
		return nil, fmt.Errorf("$ref %q names no definition in the schema's $defs or definitions", ref)
	}
	w.path = append(w.path, ref)
	defer func() { w.path = w.path[:len(w.path)-1] }()
	return w.node(target)
}

// unescapePointer reads a JSON Pointer segment.
func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// fields copies in's keys that Gemini takes into out, over what a $ref or
// allOf put there.
func (w *schemaWriter) fields(out map[string]any, in map[string]json.RawMessage) error {
	if err := w.unions(out, in); err != nil {
		return err
	}
	if t, ok := in["type"]; ok {
		types, nullable := schemaTypes(t)
		switch len(types) {
		case 0:
		case 1:
			out["type"] = types[0]
		default:
			out["anyOf"] = typeUnion(types)
		}
		if nullable {
			out["nullable"] = true
		}
	}
	for _, key := range [...]string{"title", "description", "format", "pattern"} {
		var s string
		if json.Unmarshal(in[key], &s) == nil && s != "" {
			out[key] = s
		}
	}
	for _, key := range [...]string{"minItems", "maxItems", "minLength", "maxLength", "minProperties",
		"maxProperties", "minimum", "maximum"} {
		var n json.Number
		if json.Unmarshal(in[key], &n) == nil {
			out[key] = n
		}
	}
	for _, key := range [...]string{"default", "example"} {
		if v, ok := in[key]; ok {
			out[key] = v
		}
	}
	var nullable bool
	if json.Unmarshal(in["nullable"], &nullable) == nil && nullable {
		out["nullable"] = true
	}
	readEnum(out, in)
	if err := w.properties(out, in); err != nil {
		return err
	}
	if items, ok := in["items"]; ok && bytes.HasPrefix(bytes.TrimSpace(items), []byte("{")) {
		schema, err := w.node(items)
		if err != nil {
			return err
		}
		out["items"] = schema
	}
	return nil
}

// unions reads anyOf and oneOf (as anyOf): members that only allow null
// make the schema nullable, and a single member left is merged into it.
func (w *schemaWriter) unions(out map[string]any, in map[string]json.RawMessage) error {
	var members []any
	for _, key := range [...]string{"anyOf", "oneOf"} {
		for _, raw := range rawList(in[key]) {
			m, err := w.node(raw)
			if err != nil {
				return err
			}
			if len(m) == 1 && m["nullable"] == true {
				out["nullable"] = true
				continue
			}
			members = append(members, m)
		}
	}
	switch len(members) {
	case 0:
	case 1:
		mergeSchema(out, members[0].(map[string]any))
	default:
		out["anyOf"] = members
	}
	return nil
}

// properties reads properties, in the caller's order, and required,
// keeping the names among the properties.
func (w *schemaWriter) properties(out map[string]any, in map[string]json.RawMessage) error {
	names := objectKeys(in["properties"])
	var props map[string]json.RawMessage
	if len(names) > 0 && json.Unmarshal(in["properties"], &props) == nil {
		merged, _ := out["properties"].(map[string]any)
		if merged == nil {
			merged = make(map[string]any, len(props))
		}
		for _, name := range names {
			schema, err := w.node(props[name])
			if err != nil {
				return err
			}
			merged[name] = schema
		}
		out["properties"] = merged
		if w.order && len(names) > 1 {
			out["propertyOrdering"] = names
		}
	}
	var ordering []string
	if json.Unmarshal(in["propertyOrdering"], &ordering) == nil && len(ordering) > 0 {
		out["propertyOrdering"] = ordering // a caller who wrote for Gemini
	}
	var required []string
	if json.Unmarshal(in["required"], &required) == nil && len(required) > 0 {
		prior, _ := out["required"].([]string)
		out["required"] = append(prior, required...)
	}
	return nil
}

// readEnum reads enum (strings; null makes the schema nullable; anything
// else drops the enum) and const, a one-value enum.
func readEnum(out map[string]any, in map[string]json.RawMessage) {
	var c any
	if json.Unmarshal(in["const"], &c) == nil {
		if s, ok := c.(string); ok {
			out["enum"] = []string{s}
		}
	}
	var values []any
	if json.Unmarshal(in["enum"], &values) != nil || len(values) == 0 {
		return
	}
	enum := make([]string, 0, len(values))
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			out["nullable"] = true
		case string:
			enum = append(enum, v)
		default:
			delete(out, "enum") // Gemini's enum holds strings only
			return
		}
	}
	if len(enum) > 0 {
		out["enum"] = enum
	}
}

// tidySchema makes a written schema one that Gemini accepts: an enum is a
// string's, properties and required an object's (an untyped schema with
// properties is an object), required names only its properties, and format
// is one that Gemini knows for the type.
func tidySchema(out map[string]any) {
	if _, ok := out["enum"]; ok && out["type"] == nil {
		out["type"] = "STRING"
	}
	if _, ok := out["properties"]; ok && out["type"] == nil {
		out["type"] = "OBJECT"
	}
	if out["type"] != "STRING" {
		delete(out, "enum")
	}
	props, _ := out["properties"].(map[string]any)
	if out["type"] != "OBJECT" {
		delete(out, "properties")
		delete(out, "required")
		delete(out, "propertyOrdering")
		props = nil
	}
	if required, ok := out["required"].([]string); ok {
		kept := required[:0:0]
		for _, name := range required {
			if _, ok := props[name]; ok && !slices.Contains(kept, name) {
				kept = append(kept, name)
			}
		}
		if len(kept) == 0 {
			delete(out, "required")
		} else {
			out["required"] = kept
		}
	}
	if format, ok := out["format"].(string); ok && !geminiFormat(out["type"], format) {
		delete(out, "format")
	}
	if ordering, ok := out["propertyOrdering"].([]string); ok {
		out["propertyOrdering"] = fullOrdering(ordering, props)
	}
}

// fullOrdering gives a propertyOrdering that names every property once:
// ordering's names that are properties, then the others (those an allOf or
// a $ref brought) in the alphabet's order.
func fullOrdering(ordering []string, props map[string]any) []string {
	out := make([]string, 0, len(props))
	for _, name := range ordering {
		if _, ok := props[name]; ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	rest := make([]string, 0, len(props)-len(out))
	for name := range props {
		if !slices.Contains(out, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// geminiFormat reports whether Gemini takes format for a schema of type
// typ: "only 'enum' and 'date-time' are supported for STRING type".
func geminiFormat(typ any, format string) bool {
	switch typ {
	case "NUMBER":
		return format == "float" || format == "double"
	case "INTEGER":
		return format == "int32" || format == "int64"
	case "STRING":
		return format == "enum" || format == "date-time"
	}
	return false
}

// schemaTypes reads type, a name or a list of names, as Gemini's types;
// null is reported as nullable, and names Gemini has no type for are
// dropped.
func schemaTypes(raw json.RawMessage) (types []string, nullable bool) {
	var names []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		names = []string{one}
	} else if json.Unmarshal(raw, &names) != nil {
		return nil, false
	}
	for _, name := range names {
		switch name = strings.ToUpper(name); name {
		case "NULL":
			nullable = true
		case "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT":
			if !slices.Contains(types, name) {
				types = append(types, name)
			}
		}
	}
	return types, nullable
}

func typeUnion(types []string) []any {
	out := make([]any, len(types))
	for i, t := range types {
		out[i] = map[string]any{"type": t}
	}
	return out
}

// mergeSchema merges src into dst: properties and required are joined,
// other keys of src are taken where dst has none.
func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst[k].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			for name, schema := range v.(map[string]any) {
				props[name] = schema
			}
			dst[k] = props
		case "required", "propertyOrdering":
			prior, _ := dst[k].([]string)
			dst[k] = append(prior, v.([]string)...)
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

// rawList reads a JSON array's elements; nil for anything else.
func rawList(raw json.RawMessage) []json.RawMessage {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	return list
}

// objectKeys gives a JSON object's keys in their order; nil for anything
// else. Decoding into a map would lose the order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys
}
